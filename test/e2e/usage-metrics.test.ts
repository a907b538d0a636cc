import { randomUUID } from "node:crypto";
import { Unleash, UnleashEvents } from "unleash-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flagAdmin } from "../src/flag-admin.js";
import { waitFor } from "../src/servers.js";
import { tokenSecret } from "../src/tokens.js";
import { startVexilProcess, type VexilProcess } from "../src/vexil-process.js";

/**
 * Usage counts from real SDKs: three `unleash-client` instances evaluate at once and post metrics
 * concurrently; what admin serves on Unleash's paths equals, per application, environment and
 * flag, the sum of what each SDK reported it sent (the SDK's own `sent` events).
 */
const tokens = {
  admin: tokenSecret("*", "*"),
  client: tokenSecret("*", "development"),
  frontend: tokenSecret("*", "development"),
};
const project = `usage-${randomUUID().slice(0, 6)}`;
const flags = { inDefault: `usage-default-${randomUUID().slice(0, 4)}`, inFresh: `usage-fresh-${randomUUID().slice(0, 4)}` };
let vexil: VexilProcess;

const call = (path: string, init: { method?: string; body?: unknown; token?: string } = {}) =>
  fetch(`${vexil.url}${path}`, {
    method: init.method ?? "GET",
    headers: { authorization: init.token ?? tokens.admin, ...(init.body !== undefined ? { "content-type": "application/json" } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });

type Totals = Map<string, { yes: number; no: number; variants: Record<string, number> }>;

/** Adds a sent metrics payload into per app+flag totals. */
function addSent(
  totals: Totals,
  appName: string,
  payload: { bucket: { toggles: Record<string, { yes: number; no: number; variants?: Record<string, number> }> } },
) {
  for (const [flag, counts] of Object.entries(payload.bucket.toggles)) {
    if (counts.yes + counts.no === 0 && Object.keys(counts.variants ?? {}).length === 0) continue;
    const key = `${appName}|${flag}`;
    const total = totals.get(key) ?? { yes: 0, no: 0, variants: {} };
    total.yes += counts.yes;
    total.no += counts.no;
    for (const [name, n] of Object.entries(counts.variants ?? {})) total.variants[name] = (total.variants[name] ?? 0) + n;
    totals.set(key, total);
  }
}

beforeAll(async () => {
  vexil = await startVexilProcess({
    env: { INIT_ADMIN_API_TOKENS: tokens.admin, INIT_CLIENT_API_TOKENS: tokens.client, INIT_FRONTEND_API_TOKENS: tokens.frontend },
  });
  expect((await call("/api/admin/projects", { method: "POST", body: { id: project, name: project } })).status).toBe(201);
  const inDefault = flagAdmin((path, init) => call(path, init));
  const inFresh = flagAdmin((path, init) => call(path, init), project);
  await inDefault.createFeature(flags.inDefault);
  // On for half of the users: both yes and no get counted.
  await inDefault.addStrategy(flags.inDefault, "development", {
    name: "flexibleRollout",
    parameters: { rollout: "50", stickiness: "userId", groupId: flags.inDefault },
  });
  await inDefault.setEnabled(flags.inDefault, "development", true);
  await inFresh.createFeature(flags.inFresh);
  await inFresh.addStrategy(flags.inFresh, "development", { name: "default" });
  await inFresh.setVariants(flags.inFresh, "development", [
    { name: "red", weight: 500, weightType: "variable", stickiness: "userId" },
    { name: "blue", weight: 500, weightType: "variable", stickiness: "userId" },
  ]);
  await inFresh.setEnabled(flags.inFresh, "development", true);
}, 120_000);

afterAll(async () => {
  await vexil?.stop();
});

describe("usage metrics", () => {
  it("counts exactly what three concurrent SDKs reported, per application, flag and variant", async () => {
    const sent: Totals = new Map();
    const sdks = await Promise.all(
      ["usage-app-a", "usage-app-b", "usage-app-c"].map(async (appName) => {
        const unleash = new Unleash({
          appName,
          url: `${vexil.url}/api`,
          customHeaders: { Authorization: tokens.client },
          refreshInterval: 1000,
          metricsInterval: 200,
          backupPath: vexil.dataDir,
        });
        unleash.on(UnleashEvents.Sent, (payload) => addSent(sent, appName, payload));
        unleash.on(UnleashEvents.Error, () => undefined);
        await new Promise((resolve) => unleash.once(UnleashEvents.Synchronized, resolve));
        return { appName, unleash };
      }),
    );
    // All three evaluate at once, while their metrics posts interleave.
    await Promise.all(
      sdks.map(async ({ unleash }, index) => {
        for (let round = 0; round < 40; round++) {
          for (let user = 0; user < 5; user++) {
            const context = { userId: `user-${index}-${round}-${user}` };
            unleash.isEnabled(flags.inDefault, context);
            unleash.getVariant(flags.inFresh, context);
          }
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }),
    );
    await Promise.all(sdks.map(({ unleash }) => unleash.destroyWithFlush()));
    expect(sent.size).toBe(6);

    const stored = async () => {
      const totals: Totals = new Map();
      for (const flag of [flags.inDefault, flags.inFresh]) {
        const res = await call(`/api/admin/client-metrics/features/${flag}/raw`);
        expect(res.status).toBe(200);
        const body = await res.json();
        expect(body).toMatchObject({ version: 1, maturity: "stable" });
        for (const entry of body.data) {
          expect(entry).toMatchObject({ featureName: flag, environment: "development" });
          addSent(totals, entry.appName, { bucket: { toggles: { [flag]: { yes: entry.yes, no: entry.no, variants: entry.variants } } } });
        }
      }
      return totals;
    };
    const expected = Object.fromEntries([...sent].sort());
    const matched = await waitFor(
      async () => JSON.stringify(Object.fromEntries([...(await stored())].sort())) === JSON.stringify(expected),
      15_000,
    );
    expect(Object.fromEntries([...(await stored())].sort())).toEqual(expected);
    expect(matched).toBe(true);
    const total = [...sent.values()].reduce((sum, t) => sum + t.yes + t.no, 0);
    expect(total).toBe(3 * 40 * 5 * 2);

    const summary = await (await call(`/api/admin/client-metrics/features/${flags.inFresh}`)).json();
    expect(summary.seenApplications).toEqual(["usage-app-a", "usage-app-b", "usage-app-c"]);
    expect(summary.lastHourUsage).toEqual([
      expect.objectContaining({ environment: "development", yes: 3 * 40 * 5, no: 0, timestamp: expect.any(String) }),
    ]);
  }, 90_000);

  it("counts browser SDK metrics from /api/frontend/client/metrics", async () => {
    const res = await call("/api/frontend/client/metrics", {
      method: "POST",
      token: tokens.frontend,
      body: {
        appName: "usage-browser",
        instanceId: "tab-1",
        bucket: {
          start: new Date().toISOString(),
          stop: new Date().toISOString(),
          toggles: { [flags.inFresh]: { yes: 7, no: 2, variants: { red: 4, blue: 3 } } },
        },
      },
    });
    expect(res.status).toBe(200);
    const seen = await waitFor(async () => {
      const { data } = await (await call(`/api/admin/client-metrics/features/${flags.inFresh}/raw?hoursBack=1`)).json();
      const browser = data.find((entry: { appName: string }) => entry.appName === "usage-browser");
      return browser?.yes === 7 && browser.no === 2 && browser.variants.red === 4 && browser.variants.blue === 3;
    }, 30_000);
    expect(seen).toBe(true);
  });

  it("refuses a bad hoursBack and needs a credential", async () => {
    const bad = await call(`/api/admin/client-metrics/features/${flags.inFresh}/raw?hoursBack=0`);
    expect(bad.status).toBe(400);
    expect((await bad.json()).name).toBe("ValidationError");
    expect((await fetch(`${vexil.url}/api/admin/client-metrics/features/${flags.inFresh}`)).status).toBe(401);
  });
});
