import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Unleash } from "unleash-client";
import { playgroundResponseSchema, type PlaygroundFeature, type PlaygroundRequest } from "@vexil/contracts";
import { flagAdmin } from "../src/flag-admin.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";
import { sdkPool, until } from "../src/sdks.js";

/**
 * The playground (`POST /api/admin/playground`) through the compiled gateway: for flags in
 * `default` and in a project created while Vexil runs, its `isEnabled` and variant equal what the
 * real `unleash-client` answers for the same context, and it says why (strategy, constraint,
 * segment and parent results). Bad input and token types are refused as Unleash refuses them.
 */
const fresh = "play-fresh";
let vexil: TestSystem;
const sdks = sdkPool();
let everyProject: Unleash;
let freshOnly: Unleash;
let vipSegment: number;

const contexts = [
  { userId: "u1", properties: { tier: "gold" } },
  { userId: "u2", properties: { tier: "silver" } },
  { userId: "vip-1", properties: { tier: "gold" } },
  { userId: "vip-2", sessionId: "s2", remoteAddress: "10.0.0.7" },
  { userId: "u5", currentTime: "2020-01-01T00:00:00.000Z" },
  ...Array.from({ length: 15 }, (_, i) => ({ userId: `user-${i}`, properties: { tier: i % 2 ? "gold" : "bronze" } })),
];

async function setUpFlags(project: string): Promise<void> {
  const admin = flagAdmin((path, init) => vexil.api(path, init), project);
  const flag = (base: string) => `${project}-${base}`;
  await admin.createFeature(flag("gold"));
  await admin.addStrategy(flag("gold"), "development", {
    name: "flexibleRollout",
    parameters: { rollout: "50", stickiness: "default", groupId: flag("gold") },
    constraints: [{ contextName: "tier", operator: "IN", values: ["gold"] }],
    variants: [
      { name: "a", weight: 500, weightType: "variable", stickiness: "default", payload: { type: "string", value: "A" } },
      { name: "b", weight: 500, weightType: "variable", stickiness: "default" },
    ],
  });
  await admin.setEnabled(flag("gold"), "development", true);

  await admin.createFeature(flag("vip"));
  await admin.addStrategy(flag("vip"), "development", { name: "default", segments: [vipSegment] });
  await admin.setEnabled(flag("vip"), "development", true);

  await admin.createFeature(flag("child"));
  await admin.addStrategy(flag("child"), "development", { name: "default" });
  await admin.addDependency(flag("child"), { feature: flag("vip") });
  await admin.setEnabled(flag("child"), "development", true);

  await admin.createFeature(flag("later"));
  await admin.addStrategy(flag("later"), "development", { name: "default", disabled: true });
  await admin.addStrategy(flag("later"), "development", {
    name: "default",
    constraints: [{ contextName: "currentTime", operator: "DATE_AFTER", value: "2024-01-01T00:00:00.000Z" }],
  });
  await admin.setEnabled(flag("later"), "development", true);

  await admin.createFeature(flag("off"));
  await admin.addStrategy(flag("off"), "development", { name: "default" });

  await admin.createFeature(flag("colours"));
  await admin.addStrategy(flag("colours"), "development", {
    name: "flexibleRollout",
    parameters: { rollout: "100", stickiness: "userId", groupId: flag("colours") },
  });
  await admin.setVariants(flag("colours"), "development", [
    { name: "red", weight: 300, weightType: "fix", stickiness: "userId" },
    { name: "blue", weight: 700, weightType: "variable", stickiness: "userId", overrides: [{ contextName: "userId", values: ["u1"] }] },
  ]);
  await admin.setEnabled(flag("colours"), "development", true);
}

const flagNames = (project: string) => ["gold", "vip", "child", "later", "off", "colours"].map((base) => `${project}-${base}`);

async function playground(body: Omit<PlaygroundRequest, "context"> & { context: Record<string, unknown> }, token?: string) {
  return playgroundResponseSchema.parse(await vexil.expectStatus("/api/admin/playground", { method: "POST", body, token }, 200));
}

beforeAll(async () => {
  vexil = await startTestSystem();
  await vexil.createProject(fresh);
  const admin = flagAdmin((path, init) => vexil.api(path, init));
  vipSegment = await admin.createSegment("play-vips", [{ contextName: "userId", operator: "IN", values: ["vip-1", "vip-2"] }]);
  await setUpFlags("default");
  await setUpFlags(fresh);
  const target = { url: vexil.url, dataDir: vexil.dataDir };
  everyProject = await sdks.serverSdk(target, vexil.tokens.client, "polling");
  freshOnly = await sdks.serverSdk(
    target,
    await vexil.createApiToken({ type: "client", projects: [fresh], environment: "development" }),
    "polling",
  );
  // The last change set up is the fresh project's variants: once an SDK has them it has everything before.
  for (const sdk of [everyProject, freshOnly])
    await until(() => (sdk.getFeatureToggleDefinition(`${fresh}-colours`)?.variants?.length ?? 0) > 0, 10_000, "the flags reach the SDK");
}, 240_000);
afterAll(async () => {
  sdks.stopAll();
  await vexil?.stop();
});

type TestContext = (typeof contexts)[number];

/** The same context as the SDK takes it: a Date for currentTime. */
const forSdk = ({ currentTime, ...context }: TestContext) => ({
  ...context,
  ...(currentTime ? { currentTime: new Date(currentTime) } : {}),
});

function sdkVariant(sdk: Unleash, name: string, context: TestContext) {
  const { name: variant, enabled, payload, feature_enabled } = sdk.getVariant(name, forSdk(context));
  return { name: variant, enabled, feature_enabled, ...(payload ? { payload } : {}) };
}

describe("playground", () => {
  it.each(["default", fresh])("answers what unleash-client answers for every context, in %s", async (project) => {
    const sdk = project === fresh ? freshOnly : everyProject;
    for (const context of contexts) {
      const answer = await playground({ environment: "development", projects: [project], context: { appName: "e2e", ...context } });
      expect(answer.features.map((f) => f.name).sort()).toEqual(flagNames(project).sort());
      for (const feature of answer.features) {
        const why = `${feature.name} for ${JSON.stringify(context)}`;
        expect(feature.projectId).toBe(project);
        expect(feature.isEnabled, why).toBe(sdk.isEnabled(feature.name, forSdk(context)));
        const { featureEnabled, ...variant } = feature.variant;
        expect(variant, why).toEqual(sdkVariant(sdk, feature.name, context));
        // Unleash's deprecated repetition of feature_enabled, on enabled flags only.
        if (featureEnabled !== undefined) expect([featureEnabled, feature.isEnabled], why).toEqual([variant.feature_enabled, true]);
      }
    }
  });

  it.each(["default", fresh])("says which strategy, constraint, segment and parent decided, in %s", async (project) => {
    const byName = async (context: Record<string, unknown>) => {
      const answer = await playground({ environment: "development", projects: "*", context: { appName: "e2e", ...context } });
      return new Map<string, PlaygroundFeature>(answer.features.map((f) => [f.name, f]));
    };
    const vip = await byName({ userId: "vip-1" });
    expect(vip.get(`${project}-vip`)).toMatchObject({ isEnabled: true, strategies: { result: true } });
    expect(vip.get(`${project}-vip`)!.strategies.data[0]).toMatchObject({
      name: "default",
      result: { evaluationStatus: "complete", enabled: true },
      segments: [{ id: vipSegment, name: "play-vips", result: true, constraints: [{ contextName: "userId", result: true }] }],
    });
    expect(vip.get(`${project}-child`)).toMatchObject({ isEnabled: true, hasUnsatisfiedDependency: false });
    expect(vip.get(`${project}-gold`)!.strategies.data[0]).toMatchObject({
      result: { evaluationStatus: "complete", enabled: false },
      constraints: [{ contextName: "tier", operator: "IN", values: ["gold"], result: false }],
    });
    expect(vip.get(`${project}-off`)).toMatchObject({
      isEnabled: false,
      isEnabledInCurrentEnvironment: false,
      strategies: { result: true },
    });

    const stranger = await byName({ userId: "stranger", currentTime: "2020-06-01T00:00:00.000Z" });
    expect(stranger.get(`${project}-vip`)!.strategies.data[0]!.segments[0]).toMatchObject({ result: false });
    expect(stranger.get(`${project}-child`)).toMatchObject({
      isEnabled: false,
      hasUnsatisfiedDependency: true,
      strategies: { result: true },
    });
    const later = stranger.get(`${project}-later`)!;
    expect(later.isEnabled).toBe(false);
    expect(later.strategies.data.map((s) => [s.disabled, s.result])).toEqual([
      [true, { evaluationStatus: "unevaluated", enabled: "unknown" }],
      [false, { evaluationStatus: "complete", enabled: false }],
    ]);
    expect((await byName({ userId: "stranger" })).get(`${project}-later`)!.isEnabled).toBe(true);
  });

  it("evaluates every project by default, echoes its input and leaves out other environments' answers", async () => {
    const body = { environment: "development", context: { appName: "e2e", userId: "u1", tier: "gold" } };
    const answer = await playground(body);
    expect(answer.input).toEqual(body);
    expect(answer.features.map((f) => f.name).sort()).toEqual([...flagNames("default"), ...flagNames(fresh)].sort());
    // A top-level field counts as a property, as the SDKs read it.
    const gold = answer.features.find((f) => f.name === "default-gold")!;
    expect(gold.strategies.data[0]!.constraints[0]!.result).toBe(true);
    const production = await playground({ environment: "production", projects: "*", context: { appName: "e2e" } });
    expect(production.features.every((f) => !f.isEnabled && !f.isEnabledInCurrentEnvironment)).toBe(true);
  });

  it("is open to every signed-in user and admin token, not to client or frontend tokens", async () => {
    const viewer = await vexil.createPerson({ username: "play-viewer", rootRole: "Viewer" });
    const body = { environment: "development", context: { appName: "e2e" } };
    expect((await playground(body, viewer.token)).features.length).toBeGreaterThan(0);
    for (const token of [vexil.tokens.client, vexil.tokens.frontend])
      await vexil.expectError("/api/admin/playground", { method: "POST", body, token }, 403, "NoAccessError");
    await vexil.expectError("/api/admin/playground", { method: "POST", body, token: null }, 401, "AuthenticationRequired");
  });

  it.each([
    ["an unknown environment", { environment: "nowhere", context: { appName: "e2e" } }],
    ["no environment", { context: { appName: "e2e" } }],
    ["no context", { environment: "development" }],
    ["a context without appName", { environment: "development", context: { userId: "u1" } }],
    ["a currentTime that is no date", { environment: "development", context: { appName: "e2e", currentTime: "soon" } }],
    ["a property that is not a string", { environment: "development", context: { appName: "e2e", properties: { tier: { a: 1 } } } }],
    ["a nested top-level field", { environment: "development", context: { appName: "e2e", tier: ["gold"] } }],
    ["projects that are neither a list nor *", { environment: "development", projects: "all", context: { appName: "e2e" } }],
  ])("refuses %s with 400 ValidationError", async (_case, body) => {
    const error = await vexil.expectError("/api/admin/playground", { method: "POST", body }, 400, "ValidationError");
    expect(error.message.length).toBeGreaterThan(0);
  });
});
