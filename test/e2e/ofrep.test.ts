import { randomUUID } from "node:crypto";
import { OFREPProvider } from "@openfeature/ofrep-provider";
import { OFREPWebProvider } from "@openfeature/ofrep-web-provider";
import { OpenFeature as ServerOpenFeature } from "@openfeature/server-sdk";
import { OpenFeature as WebOpenFeature } from "@openfeature/web-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flagAdmin } from "../src/flag-admin.js";
import { waitFor } from "../src/servers.js";
import { tokenSecret } from "../src/tokens.js";
import { startVexilProcess, type VexilProcess } from "../src/vexil-process.js";

/**
 * OFREP on a running Vexil, through the OpenFeature providers users install: the server provider
 * (`@openfeature/ofrep-provider` on `@openfeature/server-sdk`) with a client token, and the web
 * provider (`@openfeature/ofrep-web-provider` on `@openfeature/web-sdk`, polling with ETags) with
 * a frontend token, for identified and anonymous users (no `targetingKey`), on flags with
 * targeting in the default project and in a fresh one; each answer with OpenFeature's reason.
 */
const tokens = {
  admin: tokenSecret("*", "*"),
  client: tokenSecret("*", "development"),
  frontend: tokenSecret("*", "development"),
};
const project = `ofrep-${randomUUID().slice(0, 6)}`;
const flags = {
  targeted: "ofrep-targeted",
  variant: "ofrep-variant",
  off: "ofrep-off",
  everyone: "ofrep-everyone",
  premium: "ofrep-premium",
  ab: "ofrep-ab",
};
let vexil: VexilProcess;

const call = (path: string, init: { method?: string; body?: unknown; token?: string | null; headers?: Record<string, string> } = {}) =>
  fetch(`${vexil.url}${path}`, {
    method: init.method ?? "GET",
    headers: {
      ...(init.token === null ? {} : { authorization: init.token ?? tokens.admin }),
      ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : typeof init.body === "string" ? init.body : JSON.stringify(init.body),
  });

const variant = (name: string, weight: number, extra: Record<string, unknown> = {}) => ({
  name,
  weight,
  weightType: "variable",
  stickiness: "default",
  ...extra,
});

beforeAll(async () => {
  vexil = await startVexilProcess({
    env: { INIT_ADMIN_API_TOKENS: tokens.admin, INIT_CLIENT_API_TOKENS: tokens.client, INIT_FRONTEND_API_TOKENS: tokens.frontend },
  });
  expect((await call("/api/admin/projects", { method: "POST", body: { id: project, name: project } })).status).toBe(201);
  const inDefault = flagAdmin((path, init) => call(path, init));
  const inFresh = flagAdmin((path, init) => call(path, init), project);
  // Default project: on for alice only; on for everyone; on for plan=premium; a 50/50 A/B test; off.
  await inDefault.createFeature(flags.targeted);
  await inDefault.addStrategy(flags.targeted, "development", {
    name: "default",
    constraints: [{ contextName: "userId", operator: "IN", values: ["alice"] }],
  });
  await inDefault.setEnabled(flags.targeted, "development", true);
  await inDefault.createFeature(flags.everyone);
  await inDefault.addStrategy(flags.everyone, "development", { name: "default" });
  await inDefault.setEnabled(flags.everyone, "development", true);
  await inDefault.createFeature(flags.premium);
  await inDefault.addStrategy(flags.premium, "development", {
    name: "default",
    constraints: [{ contextName: "plan", operator: "IN", values: ["premium"] }],
  });
  await inDefault.setEnabled(flags.premium, "development", true);
  await inDefault.createFeature(flags.ab);
  await inDefault.addStrategy(flags.ab, "development", {
    name: "flexibleRollout",
    parameters: { rollout: "100", stickiness: "default", groupId: flags.ab },
    variants: [
      variant("a", 500, { payload: { type: "string", value: "A" } }),
      variant("b", 500, { payload: { type: "string", value: "B" } }),
    ],
  });
  await inDefault.setEnabled(flags.ab, "development", true);
  await inDefault.createFeature(flags.off);
  // Fresh project: everyone on, with a JSON variant for plan=premium and a string one otherwise.
  await inFresh.createFeature(flags.variant);
  await inFresh.addStrategy(flags.variant, "development", {
    name: "flexibleRollout",
    parameters: { rollout: "100", stickiness: "default", groupId: flags.variant },
  });
  await inFresh.setVariants(flags.variant, "development", [
    variant("premium", 0, {
      weightType: "fix",
      payload: { type: "json", value: '{"color":"gold"}' },
      overrides: [{ contextName: "plan", values: ["premium"] }],
    }),
    variant("basic", 1000, { payload: { type: "string", value: "grey" } }),
  ]);
  await inFresh.setEnabled(flags.variant, "development", true);
});

afterAll(async () => {
  await ServerOpenFeature.close();
  await WebOpenFeature.close();
  await vexil?.stop();
});

describe("@openfeature/ofrep-provider on @openfeature/server-sdk (client token)", () => {
  beforeAll(async () => {
    await ServerOpenFeature.setProviderAndWait(
      new OFREPProvider({ baseUrl: vexil.url, headers: { Authorization: `Bearer ${tokens.client}` } }),
    );
  });

  it("evaluates an identified user: targeting, variants with payloads, splits, disabled and unknown flags, with their reasons", async () => {
    const client = ServerOpenFeature.getClient();
    const alice = await client.getBooleanDetails(flags.targeted, false, { targetingKey: "alice" });
    expect(alice).toMatchObject({ value: true, reason: "TARGETING_MATCH", variant: "enabled" });
    expect(alice.errorCode).toBeUndefined();
    const bob = await client.getBooleanDetails(flags.targeted, true, { targetingKey: "bob" });
    expect(bob).toMatchObject({ value: false, variant: "disabled", reason: "DEFAULT" });
    expect(bob.errorCode).toBeUndefined();
    expect(await client.getBooleanDetails(flags.everyone, false, { targetingKey: "bob" })).toMatchObject({ value: true, reason: "STATIC" });

    const premium = await client.getObjectDetails(flags.variant, {}, { targetingKey: "carol", plan: "premium" });
    expect(premium).toMatchObject({ value: { color: "gold" }, variant: "premium", reason: "TARGETING_MATCH" });
    const basic = await client.getStringDetails(flags.variant, "none", { targetingKey: "dave", plan: "free" });
    expect(basic).toMatchObject({ value: "grey", variant: "basic", reason: "TARGETING_MATCH" });
    const ab = await client.getStringDetails(flags.ab, "none", { targetingKey: "dave" });
    expect(ab).toMatchObject({ reason: "SPLIT" });
    expect(["A", "B"]).toContain(ab.value);
    // Sticky: the same user gets the same side again.
    expect((await client.getStringDetails(flags.ab, "none", { targetingKey: "dave" })).value).toBe(ab.value);

    expect(await client.getBooleanDetails(flags.off, true, { targetingKey: "alice" })).toMatchObject({ value: false, reason: "DISABLED" });
    const missing = await client.getBooleanDetails("no-such-flag", true, { targetingKey: "alice" });
    expect(missing).toMatchObject({ value: true, reason: "ERROR", errorCode: "FLAG_NOT_FOUND" });
    const wrongType = await client.getStringDetails(flags.everyone, "fallback", { targetingKey: "alice" });
    expect(wrongType).toMatchObject({ value: "fallback", reason: "ERROR", errorCode: "TYPE_MISMATCH" });
  });

  it("evaluates an anonymous user (no targetingKey) by Unleash's rules for a context without userId", async () => {
    const client = ServerOpenFeature.getClient();
    const targeted = await client.getBooleanDetails(flags.targeted, true, {});
    expect(targeted).toMatchObject({ value: false, reason: "DEFAULT" });
    expect(targeted.errorCode).toBeUndefined();
    expect(await client.getBooleanDetails(flags.everyone, false)).toMatchObject({ value: true, reason: "STATIC" });
    expect(await client.getBooleanDetails(flags.premium, false, { plan: "premium" })).toMatchObject({
      value: true,
      reason: "TARGETING_MATCH",
    });
    expect(await client.getBooleanDetails(flags.premium, true, { plan: "free" })).toMatchObject({ value: false, reason: "DEFAULT" });
    expect(await client.getObjectDetails(flags.variant, {}, { plan: "premium" })).toMatchObject({ value: { color: "gold" } });
    // The variant stickiness falls back to the session, as in the Unleash SDKs.
    const first = await client.getStringDetails(flags.ab, "none", { sessionId: "s-1" });
    expect(first).toMatchObject({ reason: "SPLIT" });
    expect((await client.getStringDetails(flags.ab, "none", { sessionId: "s-1" })).value).toBe(first.value);
    expect(await client.getBooleanDetails(flags.off, true)).toMatchObject({ value: false, reason: "DISABLED" });
  });
});

describe("@openfeature/ofrep-web-provider on @openfeature/web-sdk (frontend token)", () => {
  it("evaluates an anonymous user, then the identified one it is given, and sees a change through its polling", async () => {
    // No targetingKey: what a page shows before anyone signs in.
    await WebOpenFeature.setContext({ plan: "premium" });
    await WebOpenFeature.setProviderAndWait(
      new OFREPWebProvider({
        baseUrl: vexil.url,
        headers: [["Authorization", `Bearer ${tokens.frontend}`]],
        pollInterval: 200,
        disableVisibilityRefresh: true,
        changeDetection: "polling",
        cacheMode: "disabled",
      }),
    );
    const client = WebOpenFeature.getClient();
    const anonymous = client.getBooleanDetails(flags.targeted, true);
    expect(anonymous).toMatchObject({ value: false, reason: "DEFAULT" });
    expect(anonymous.errorCode).toBeUndefined();
    expect(client.getBooleanDetails(flags.everyone, false)).toMatchObject({ value: true, reason: "STATIC" });
    expect(client.getBooleanDetails(flags.premium, false)).toMatchObject({ value: true, reason: "TARGETING_MATCH" });
    expect(client.getObjectValue(flags.variant, {})).toEqual({ color: "gold" });
    expect(client.getBooleanDetails(flags.off, true)).toMatchObject({ value: false, reason: "DISABLED" });
    expect(client.getBooleanDetails("no-such-flag", true)).toMatchObject({ value: true, reason: "ERROR", errorCode: "FLAG_NOT_FOUND" });

    await WebOpenFeature.setContext({ targetingKey: "alice" });
    expect(client.getBooleanDetails(flags.targeted, false)).toMatchObject({ value: true, reason: "TARGETING_MATCH" });
    expect(client.getStringDetails(flags.variant, "none")).toMatchObject({ value: "grey", reason: "TARGETING_MATCH" });
    expect(client.getStringDetails(flags.ab, "none")).toMatchObject({ reason: "SPLIT" });
    expect(client.getBooleanDetails(flags.premium, true)).toMatchObject({ value: false, reason: "DEFAULT" });

    await WebOpenFeature.setContext({ targetingKey: "bob", plan: "premium" });
    expect(client.getBooleanValue(flags.targeted, true)).toBe(false);
    expect(client.getObjectValue(flags.variant, {})).toEqual({ color: "gold" });

    const off = await call(`/api/admin/projects/default/features/${flags.targeted}/environments/development/off`, { method: "POST" });
    expect(off.status).toBe(200);
    await WebOpenFeature.setContext({ targetingKey: "alice" });
    expect(await waitFor(async () => client.getBooleanDetails(flags.targeted, true).reason === "DISABLED", 15_000, 100)).toBe(true);
    await call(`/api/admin/projects/default/features/${flags.targeted}/environments/development/on`, { method: "POST" });
  }, 60_000);
});

describe("OFREP over HTTP", () => {
  const single = `/ofrep/v1/evaluate/flags/${flags.targeted}`;
  const bulk = "/ofrep/v1/evaluate/flags";

  it("answers the bulk request with every flag in scope and 304 for its ETag until something changes", async () => {
    const first = await call(bulk, { method: "POST", token: tokens.frontend, body: { context: { targetingKey: "alice" } } });
    expect(first.status).toBe(200);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^".+"$/);
    const { flags: answers } = await first.json();
    expect(answers.map((f: { key: string }) => f.key).sort()).toEqual(Object.values(flags).sort());

    const again = await call(bulk, {
      method: "POST",
      token: tokens.frontend,
      headers: { "if-none-match": etag },
      body: { context: { targetingKey: "alice" } },
    });
    expect(again.status).toBe(304);
    const otherContext = await call(bulk, {
      method: "POST",
      token: tokens.frontend,
      headers: { "if-none-match": etag },
      body: { context: { targetingKey: "bob" } },
    });
    expect(otherContext.status).toBe(200);

    await call(`/api/admin/projects/default/features/${flags.off}/environments/development/on`, { method: "POST" });
    expect(
      await waitFor(async () => {
        const res = await call(bulk, {
          method: "POST",
          token: tokens.frontend,
          headers: { "if-none-match": etag },
          body: { context: { targetingKey: "alice" } },
        });
        return res.status === 200;
      }, 30_000),
    ).toBe(true);
    await call(`/api/admin/projects/default/features/${flags.off}/environments/development/off`, { method: "POST" });
  });

  it("limits a token to its projects: a flag of another project is not found", async () => {
    const created = await call("/api/admin/api-tokens", {
      method: "POST",
      body: { tokenName: "ofrep-scoped", type: "client", environment: "development", projects: ["default"] },
    });
    expect(created.status).toBe(201);
    const secret = (await created.json()).secret as string;
    const res = await call(`/ofrep/v1/evaluate/flags/${flags.variant}`, {
      method: "POST",
      token: `Bearer ${secret}`,
      body: { context: { targetingKey: "a" } },
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ key: flags.variant, errorCode: "FLAG_NOT_FOUND" });
  });

  it("answers a request without targetingKey, or without any context, as an anonymous user", async () => {
    for (const body of [{ context: { plan: "premium" } }, { context: {} }, {}]) {
      const one = await call(`/ofrep/v1/evaluate/flags/${flags.everyone}`, { method: "POST", token: tokens.client, body });
      expect(one.status, JSON.stringify(body)).toBe(200);
      expect(await one.json()).toMatchObject({ key: flags.everyone, value: true, reason: "STATIC" });
      const all = await call(bulk, { method: "POST", token: tokens.frontend, body });
      expect(all.status, JSON.stringify(body)).toBe(200);
      const { flags: answers } = await all.json();
      expect(answers.find((f: { key: string }) => f.key === flags.targeted)).toMatchObject({ value: false, reason: "DEFAULT" });
    }
  });

  it.each([
    ["a body that is not JSON", "{not json", 400, "PARSE_ERROR"],
    ["a body that is not an object", "[1]", 400, "PARSE_ERROR"],
    ["a targetingKey that is not a string", { context: { targetingKey: 42 } }, 400, "INVALID_CONTEXT"],
    ["a context that is not an object", { context: ["alice"] }, 400, "INVALID_CONTEXT"],
    ["a nested context value", { context: { targetingKey: "alice", address: { city: "Oslo" } } }, 400, "INVALID_CONTEXT"],
  ])("refuses %s with the protocol's error code", async (_what, body, status, errorCode) => {
    for (const path of [single, bulk]) {
      const res = await call(path, { method: "POST", token: tokens.client, body });
      expect(res.status, path).toBe(status);
      const answer = await res.json();
      expect(answer).toMatchObject({ errorCode });
      expect(typeof answer.errorDetails).toBe("string");
      if (path === single) expect(answer.key).toBe(flags.targeted);
    }
  });

  it("takes the token as Bearer or X-API-Key, refuses none (401) and admin tokens (403)", async () => {
    const body = { context: { targetingKey: "alice" } };
    expect((await call(single, { method: "POST", token: null, headers: { "x-api-key": tokens.client }, body })).status).toBe(200);
    expect((await call(single, { method: "POST", token: `Bearer ${tokens.frontend}`, body })).status).toBe(200);
    const none = await call(single, { method: "POST", token: null, body });
    expect(none.status).toBe(401);
    expect((await none.json()).name).toBe("AuthenticationRequired");
    expect((await call(single, { method: "POST", token: tokens.admin, body })).status).toBe(403);
  });

  it("is documented in the OpenAPI document", async () => {
    const doc = await (await fetch(`${vexil.url}/docs/openapi.json`)).json();
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/ofrep/v1/evaluate/flags", "/ofrep/v1/evaluate/flags/{key}"]));
    expect(doc.paths["/ofrep/v1/evaluate/flags"].post.requestBody.content["application/json"].example.context.targetingKey).toBeDefined();
  });
});
