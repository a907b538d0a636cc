/**
 * What the SDKs get from each server for the same flags: `/api/client/features` (normalized), the
 * frontend API's answer for each context, and the real `unleash-client` SDK's isEnabled and
 * getVariant for each context and flag.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Context as SdkContext } from "unleash-client";
import { sdkPool } from "../src/sdks.js";
import { waitFor } from "../src/servers.js";
import { compareValues, type Difference } from "./compare.js";
import type { ParityTarget } from "./servers.js";

/** The context the frontend API takes (`{ context }` in a POST), properties nested as the browser SDK sends them. */
export interface ParityContext {
  userId?: string;
  sessionId?: string;
  remoteAddress?: string;
  appName?: string;
  currentTime?: string;
  properties: Record<string, string>;
}

/** A small seeded generator, so every run asks the same questions. */
function seeded(seed: number) {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
}

/** `count` contexts over the values the flag mix's constraints, segments and rollouts look at. */
export function parityContexts(count = 200): ParityContext[] {
  const pick = seeded(11);
  const maybe = <T>(values: readonly T[]) => pick([undefined, ...values, ...values]);
  return Array.from({ length: count }, (_, i) => {
    const properties: Record<string, string | undefined> = {
      plan: maybe(["free", "pro", "enterprise", "PRO"]),
      email: maybe(["ana@example.com", "bo@EXAMPLE.COM", "cy@vexil.dev", "di@staff.vexil.dev", "ed@other.org"]),
      country: maybe(["de", "DE", "us", "fr", "se", "ca", "br"]),
      age: maybe(["17", "18", "30", "64", "65", "91", "120", "old"]),
      appVersion: maybe(["1.9.3", "2.0.0", "2.0.1", "2.5.0-rc.1", "3.0.0-beta.1", "3.0.0-beta.3", "3.0.0", "x.y"]),
      city: maybe(["Berlin", "munich", "Ber-test", "Paris"]),
    };
    return {
      userId: i % 9 === 0 ? undefined : `user-${pick(Array.from({ length: 60 }, (_, n) => n))}`,
      // Always set: without userId and sessionId, `default` stickiness is random on both sides.
      sessionId: `session-${i}`,
      remoteAddress: maybe(["10.0.0.1", "192.168.1.77", "172.16.0.3"]),
      appName: maybe(["web", "admin-console", "ios"]),
      currentTime: maybe(["2019-06-01T00:00:00.000Z", "2025-01-01T00:00:00.000Z", "2031-06-01T00:00:00.000Z"]),
      properties: Object.fromEntries(Object.entries(properties).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    };
  }).map((context) => Object.fromEntries(Object.entries(context).filter(([, v]) => v !== undefined)) as unknown as ParityContext);
}

interface ClientFeature {
  name: string;
  strategies?: Array<Record<string, unknown>>;
  [field: string]: unknown;
}

/** `/api/client/features` with what legitimately differs between two servers taken out. */
export async function clientFeatures(target: ParityTarget, segmentNames: Map<unknown, string>): Promise<Map<string, ClientFeature>> {
  const res = await target.call("/api/client/features", { token: "client" });
  if (!res.ok) throw new Error(`${target.name} /api/client/features: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { features: ClientFeature[] };
  return new Map(
    body.features.map((feature) => [
      feature.name,
      {
        ...feature,
        strategies: feature.strategies?.map(({ id: _id, ...strategy }) => ({
          ...strategy,
          ...(Array.isArray(strategy.segments) ? { segments: strategy.segments.map((s) => segmentNames.get(s) ?? s) } : {}),
        })),
      },
    ]),
  );
}

/** POST with `{ context }`, as the browser SDK sends it, or GET with the fields and properties as query parameters. */
export async function frontendToggles(
  target: ParityTarget,
  context: ParityContext,
  method: "POST" | "GET" = "POST",
): Promise<Map<string, unknown>> {
  const { properties, ...fields } = context;
  const query = new URLSearchParams({ ...fields, ...properties });
  const res =
    method === "POST"
      ? await target.call("/api/frontend", { method, token: "frontend", body: { context } })
      : await target.call(`/api/frontend?${query}`, { token: "frontend" });
  if (!res.ok) throw new Error(`${target.name} /api/frontend: ${res.status} ${await res.text()}`);
  const { toggles } = (await res.json()) as { toggles: Array<{ name: string }> };
  return new Map(toggles.map((toggle) => [toggle.name, toggle]));
}

/**
 * Waits until a server serves the whole mix: its client API lists every live flag, and its frontend
 * API (Unleash refreshes that cache on a timer) gives the same answer twice in a row.
 */
export async function untilServed(target: ParityTarget, liveFlags: readonly string[], probe: ParityContext): Promise<void> {
  const listed = await waitFor(
    async () => {
      const res = await target.call("/api/client/features", { token: "client" });
      const names = new Set(((await res.json()) as { features: ClientFeature[] }).features.map((f) => f.name));
      return liveFlags.every((name) => names.has(name));
    },
    60_000,
    250,
  );
  if (!listed) throw new Error(`${target.name} did not serve every flag of the mix within a minute`);
  let last = "";
  const stable = await waitFor(
    async () => {
      const answer = JSON.stringify([...(await frontendToggles(target, probe))]);
      const same = answer === last && answer !== "[]";
      last = answer;
      return same;
    },
    60_000,
    700,
  );
  if (!stable) throw new Error(`${target.name}'s frontend API answer did not settle within a minute`);
}

export interface SdkComparison {
  compared: number;
  differences: Difference[];
}

export async function compareFrontend(servers: readonly ParityTarget[], contexts: readonly ParityContext[]): Promise<SdkComparison> {
  const [unleash, vexil] = servers as [ParityTarget, ParityTarget];
  let compared = 0;
  const differences: Difference[] = [];
  for (const [i, context] of contexts.entries()) {
    for (const method of ["POST", "GET"] as const) {
      const [a, b] = await Promise.all([frontendToggles(unleash, context, method), frontendToggles(vexil, context, method)]);
      compared += new Set([...a.keys(), ...b.keys()]).size;
      const where = method === "POST" ? "frontend" : "frontend (GET)";
      differences.push(...compareValues(where, Object.fromEntries(a), Object.fromEntries(b), "$.toggles", `context ${i}`));
    }
  }
  return { compared, differences };
}

const sdkContext = ({ currentTime, ...context }: ParityContext): SdkContext => ({
  ...context,
  ...(currentTime ? { currentTime: new Date(currentTime) } : {}),
});

/** The real server SDK polling each server, asked isEnabled and getVariant for every flag and context. */
export async function compareUnleashClient(
  servers: readonly ParityTarget[],
  flags: readonly string[],
  contexts: readonly ParityContext[],
): Promise<SdkComparison> {
  const sdks = sdkPool();
  const backups = await mkdtemp(path.join(tmpdir(), "vexil-parity-sdk-"));
  try {
    // A backup folder each: the SDK names its backup file after the app name, the same for both.
    const [unleash, vexil] = await Promise.all(
      servers.map(async (server) => {
        const dataDir = path.join(backups, server.name);
        await mkdir(dataDir);
        return sdks.serverSdk({ url: server.url, dataDir }, server.tokens.client, "polling", 60_000);
      }),
    );
    let compared = 0;
    const differences: Difference[] = [];
    for (const [i, context] of contexts.entries()) {
      for (const flag of flags) {
        const answers = [unleash!, vexil!].map((sdk) => ({
          isEnabled: sdk.isEnabled(flag, sdkContext(context)),
          getVariant: sdk.getVariant(flag, sdkContext(context)),
        }));
        compared += 2;
        differences.push(...compareValues("unleash-client", answers[0], answers[1], `$[${flag}]`, `context ${i}`));
      }
    }
    return { compared, differences };
  } finally {
    sdks.stopAll();
    await rm(backups, { recursive: true, force: true });
  }
}
