import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Unleash, UnleashEvents } from "unleash-client";
import { UnleashClient } from "unleash-proxy-client";
import { flagAdmin } from "../src/flag-admin.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";

/**
 * The real Unleash SDKs against Vexil: the server SDK polling and streaming
 * `/api/client/*`, and the browser SDK (run in Node with fetch) on `/api/frontend`, all reading
 * flags set up through the admin API and seeing a change made while they run.
 */
let vexil: TestSystem;
let admin: ReturnType<typeof flagAdmin>;
const started: Array<{ destroy(): void } | { stop(): void }> = [];

async function waitFor(check: () => boolean, timeoutMs: number): Promise<number> {
  const start = performance.now();
  while (!check()) {
    if (performance.now() - start > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return performance.now() - start;
}

function serverSdk(mode: "polling" | "streaming"): Promise<Unleash> {
  const unleash = new Unleash({
    appName: `e2e-${mode}`,
    url: `${vexil.url}/api`,
    customHeaders: { Authorization: vexil.tokens.client },
    refreshInterval: 200,
    disableMetrics: true,
    storageProvider: undefined,
    backupPath: vexil.dataDir,
    experimentalMode: mode === "streaming" ? { type: "streaming" } : { type: "polling", format: "full" },
  });
  started.push(unleash);
  return new Promise((resolve, reject) => {
    unleash.once(UnleashEvents.Synchronized, () => resolve(unleash));
    unleash.once(UnleashEvents.Error, reject);
  });
}

async function browserSdk(context: { userId?: string } = {}): Promise<UnleashClient> {
  const client = new UnleashClient({
    url: `${vexil.url}/api/frontend`,
    clientKey: vexil.tokens.frontend,
    appName: "e2e-browser",
    refreshInterval: 1,
    disableMetrics: true,
    context,
  });
  started.push(client);
  await client.start();
  return client;
}

beforeAll(async () => {
  vexil = await startTestSystem();
  admin = flagAdmin((path, init) => vexil.api(path, init));

  await admin.createFeature("sdk-on");
  await admin.addStrategy("sdk-on", "development", {
    name: "flexibleRollout",
    parameters: { rollout: "100", stickiness: "default", groupId: "sdk-on" },
  });
  await admin.setEnabled("sdk-on", "development", true);

  await admin.createFeature("sdk-vip", { impressionData: true });
  const vips = await admin.createSegment("sdk-vips", [{ contextName: "userId", operator: "IN", values: ["vip-1", "vip-2"] }]);
  await admin.addStrategy("sdk-vip", "development", {
    name: "flexibleRollout",
    parameters: { rollout: "100", stickiness: "default", groupId: "sdk-vip" },
    segments: [vips],
    variants: [
      { name: "gold", weight: 1000, weightType: "variable", stickiness: "default", payload: { type: "json", value: '{"tier":1}' } },
    ],
  });
  await admin.setEnabled("sdk-vip", "development", true);

  await admin.createFeature("sdk-split");
  await admin.addStrategy("sdk-split", "development", {
    name: "flexibleRollout",
    parameters: { rollout: "100", stickiness: "userId", groupId: "sdk-split" },
    constraints: [{ contextName: "plan", operator: "IN", values: ["pro"] }],
  });
  await admin.setVariants("sdk-split", "development", [
    { name: "red", weight: 300, weightType: "fix", stickiness: "userId" },
    {
      name: "blue",
      weight: 700,
      weightType: "variable",
      stickiness: "userId",
      overrides: [{ contextName: "userId", values: ["always-blue"] }],
    },
  ]);
  await admin.setEnabled("sdk-split", "development", true);

  await admin.createFeature("sdk-off");
}, 60_000);

afterAll(async () => {
  for (const sdk of started) "destroy" in sdk ? sdk.destroy() : sdk.stop();
  await vexil?.stop();
});

describe.each(["polling", "streaming"] as const)("unleash-client (%s)", (mode) => {
  it("evaluates flags, segments, constraints and variants as configured", async () => {
    const unleash = await serverSdk(mode);
    expect(unleash.isEnabled("sdk-on", { userId: "anyone" })).toBe(true);
    expect(unleash.isEnabled("sdk-off")).toBe(false);
    expect(unleash.isEnabled("sdk-vip", { userId: "vip-1" })).toBe(true);
    expect(unleash.isEnabled("sdk-vip", { userId: "nobody" })).toBe(false);
    expect(unleash.getVariant("sdk-vip", { userId: "vip-2" })).toMatchObject({
      name: "gold",
      enabled: true,
      payload: { type: "json", value: '{"tier":1}' },
    });
    expect(unleash.isEnabled("sdk-split", { userId: "u1", properties: { plan: "free" } })).toBe(false);
    expect(unleash.getVariant("sdk-split", { userId: "always-blue", properties: { plan: "pro" } }).name).toBe("blue");
    const names = new Set(
      Array.from({ length: 200 }, (_, i) => unleash.getVariant("sdk-split", { userId: `user-${i}`, properties: { plan: "pro" } }).name),
    );
    expect(names).toEqual(new Set(["red", "blue"]));
  });
});

describe("a change made while the SDKs run", () => {
  it("reaches the polling, streaming and browser SDKs", async () => {
    const polling = await serverSdk("polling");
    const streaming = await serverSdk("streaming");
    const browser = await browserSdk({ userId: "vip-1" });
    expect(browser.isEnabled("sdk-on")).toBe(true);
    expect(browser.getVariant("sdk-vip")).toMatchObject({ name: "gold", enabled: true, feature_enabled: true });
    expect(browser.isEnabled("sdk-off")).toBe(false);

    await admin.setEnabled("sdk-off", "development", true);
    await admin.setEnabled("sdk-on", "development", false);

    const streamed = await waitFor(() => streaming.isEnabled("sdk-off") && !streaming.isEnabled("sdk-on"), 2000);
    // Pushed, not polled: well inside one polling interval.
    expect(streamed).toBeLessThan(200);
    await waitFor(() => polling.isEnabled("sdk-off") && !polling.isEnabled("sdk-on"), 3000);
    await waitFor(() => browser.isEnabled("sdk-off") && !browser.isEnabled("sdk-on"), 3000);

    await admin.archive("sdk-off");
    await waitFor(() => !streaming.isEnabled("sdk-off"), 2000);
    expect(streaming.getFeatureToggleDefinition("sdk-off")).toBeUndefined();
  });
});

describe("metrics from SDKs", () => {
  it("set the flag's lastSeenAt in the token's environment", async () => {
    const now = new Date().toISOString();
    const res = await vexil.api("/api/client/metrics", {
      method: "POST",
      token: vexil.tokens.client,
      body: {
        appName: "e2e-metrics",
        instanceId: "i1",
        bucket: { start: now, stop: now, toggles: { "sdk-vip": { yes: 3, no: 1, variants: {} } } },
      },
    });
    expect(res.status).toBe(202);
    let environments: Array<{ name: string; lastSeenAt: string | null }> = [];
    for (let i = 0; i < 50 && !environments.find((e) => e.name === "development")?.lastSeenAt; i++) {
      environments = (await (await vexil.api("/api/admin/projects/default/features/sdk-vip")).json()).environments;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(environments.find((e) => e.name === "development")?.lastSeenAt).toEqual(expect.any(String));
    expect(environments.find((e) => e.name === "production")?.lastSeenAt).toBeNull();
  });
});
