import { describe, expect, it } from "vitest";
import { ValidationError } from "@vexil/errors";
import { compileSnapshot, evaluate } from "@vexil/evaluator";
import type { PlaygroundRequest } from "@vexil/contracts";
import type { FeatureDocument, FeatureStrategyDocument, SegmentDocument } from "../features/feature-model.js";
import { featureDocument, strategyDocument } from "../features/feature-slice.fixture.js";
import { toClientFeature, toClientSegment } from "../snapshots/client-features.js";
import { PlaygroundService, toEvaluatorContext, type PlaygroundSources } from "./playground-service.js";

const at = new Date("2030-01-01T00:00:00.000Z");
let ids = 0;

const strategy = (overrides: Partial<FeatureStrategyDocument> = {}): FeatureStrategyDocument =>
  strategyDocument({ id: `00000000-0000-4000-8000-${String(++ids).padStart(12, "0")}`, createdAt: at, ...overrides });

const flag = (name: string, strategies: FeatureStrategyDocument[], overrides: Partial<FeatureDocument> = {}): FeatureDocument =>
  featureDocument(name, {
    createdAt: at,
    environments: { development: { enabled: true, strategies, variants: [], lastSeenAt: null } },
    ...overrides,
  });

const betaTesters: SegmentDocument = {
  _id: 1,
  name: "beta-testers",
  description: null,
  project: null,
  constraints: [{ contextName: "userId", operator: "IN", values: ["1", "2"] }],
  createdBy: null,
  createdAt: at,
  version: 1,
};

function playgroundOver(features: FeatureDocument[]) {
  const sources: PlaygroundSources = {
    listFeatures: async () => features.filter((doc) => !doc.archived),
    listSegments: async () => [betaTesters],
    listEnvironments: async () => ["development", "production"],
    listProjectEnvironments: async () => [
      { project: "default", environment: "development" },
      { project: "team", environment: "development" },
      { project: "secret", environment: "development" },
      { project: "prod-only", environment: "production" },
    ],
  };
  return new PlaygroundService({ sources, clock: () => at, random: () => 0.5 });
}

const everyone = async () => true;

function request(context: Partial<PlaygroundRequest["context"]>, rest: Partial<PlaygroundRequest> = {}): PlaygroundRequest {
  return { environment: "development", projects: "*", context: { appName: "test", ...context }, ...rest };
}

describe("PlaygroundService", () => {
  const gold = strategy({
    name: "flexibleRollout",
    parameters: { rollout: "100", stickiness: "default", groupId: "checkout" },
    constraints: [{ contextName: "tier", operator: "IN", values: ["gold"] }],
    segments: [1],
  });
  const checkout = flag("checkout", [gold]);

  it("says which constraint and segment hold for a context, and which strategy decided", async () => {
    const playground = playgroundOver([checkout]);
    const on = await playground.evaluate(request({ userId: "1", properties: { tier: "gold" } }), everyone);
    const [feature] = on.features;
    expect(feature).toMatchObject({ name: "checkout", projectId: "default", isEnabled: true, isEnabledInCurrentEnvironment: true });
    expect(feature!.strategies.result).toBe(true);
    expect(feature!.strategies.data[0]).toMatchObject({
      id: gold.id,
      name: "flexibleRollout",
      result: { evaluationStatus: "complete", enabled: true },
      constraints: [{ contextName: "tier", operator: "IN", values: ["gold"], result: true }],
      segments: [{ id: 1, name: "beta-testers", result: true, constraints: [{ contextName: "userId", result: true }] }],
    });
    expect(feature!.strategies.data[0]!.links.edit).toBe(
      `/projects/default/features/checkout?environmentId=development&strategyId=${gold.id}`,
    );

    const off = await playground.evaluate(request({ userId: "3", properties: { tier: "gold" } }), everyone);
    expect(off.features[0]).toMatchObject({ isEnabled: false, strategies: { result: false } });
    expect(off.features[0]!.strategies.data[0]).toMatchObject({
      result: { evaluationStatus: "complete", enabled: false },
      constraints: [{ result: true }],
      segments: [{ result: false, constraints: [{ result: false }] }],
    });
  });

  it("echoes the input and answers the SDK's variant for every context", async () => {
    const variants = [
      {
        name: "blue",
        weight: 500,
        weightType: "variable" as const,
        stickiness: "default",
        payload: { type: "string" as const, value: "b" },
      },
      { name: "green", weight: 500, weightType: "variable" as const, stickiness: "default" },
    ];
    const colours = flag("colours", [strategy({ name: "default", variants })]);
    const playground = playgroundOver([colours]);
    const sdk = compileSnapshot({
      version: 2,
      features: [toClientFeature(colours, "development")],
      segments: [toClientSegment(betaTesters)],
    });
    const seen = new Set<string>();
    for (let user = 0; user < 20; user++) {
      const input = request({ userId: String(user) });
      const answer = await playground.evaluate(input, everyone);
      expect(answer.input).toEqual(input);
      const expected = evaluate(sdk, "colours", toEvaluatorContext(input.context, "development"), { random: () => 0.5, now: () => 0 });
      expect(answer.features[0]!.variant).toEqual({
        name: expected.variant.name,
        enabled: expected.variant.enabled,
        feature_enabled: true,
        ...(expected.variant.payload ? { payload: expected.variant.payload } : {}),
      });
      expect(answer.features[0]!.variants.map((v) => v.name)).toEqual(["blue", "green"]);
      seen.add(answer.features[0]!.variant.name);
    }
    expect(seen).toEqual(new Set(["blue", "green"]));
  });

  it("lists disabled strategies as unevaluated and custom ones as incomplete, which never switch a flag on", async () => {
    const disabled = strategy({ name: "default", disabled: true, sortOrder: 0 });
    const custom = strategy({ name: "my-custom", sortOrder: 1, parameters: { x: "1" } });
    const playground = playgroundOver([flag("custom", [custom, disabled])]);
    const [feature] = (await playground.evaluate(request({ userId: "1" }), everyone)).features;
    expect(feature!.isEnabled).toBe(false);
    expect(feature!.strategies.result).toBe("unknown");
    expect(feature!.strategies.data.map((s) => [s.name, s.disabled, s.result])).toEqual([
      ["default", true, { evaluationStatus: "unevaluated", enabled: "unknown" }],
      ["my-custom", false, { evaluationStatus: "incomplete", enabled: "unknown" }],
    ]);
    expect(feature!.variant).toEqual({ name: "disabled", enabled: false, feature_enabled: false });
  });

  it("repeats feature_enabled as featureEnabled for an enabled flag without a strategy variant, as Unleash does", async () => {
    const plain = flag("plain", [strategy({ constraints: [{ contextName: "userId", operator: "IN", values: ["1"] }] })]);
    const playground = playgroundOver([plain]);
    const [on] = (await playground.evaluate(request({ userId: "1" }), everyone)).features;
    expect(on!.variant).toEqual({ name: "disabled", enabled: false, feature_enabled: true, featureEnabled: true });
    const [off] = (await playground.evaluate(request({ userId: "2" }), everyone)).features;
    expect(off!.variant).toEqual({ name: "disabled", enabled: false, feature_enabled: false });
  });

  it("decides applicationHostname only for a context that names the host, as the SDK's host is not the server's", async () => {
    const hosts = strategy({ name: "applicationHostname", parameters: { hostNames: "web-1,web-2" } });
    const playground = playgroundOver([flag("hosts", [hosts])]);
    const [unknown] = (await playground.evaluate(request({ userId: "1" }), everyone)).features;
    expect(unknown).toMatchObject({ isEnabled: false, strategies: { result: "unknown" } });
    expect(unknown!.strategies.data[0]!.result).toEqual({ evaluationStatus: "incomplete", enabled: "unknown" });
    const [named] = (await playground.evaluate(request({ properties: { hostname: "web-2" } }), everyone)).features;
    expect(named).toMatchObject({ isEnabled: true, strategies: { result: true } });
    expect(named!.strategies.data[0]!.result).toEqual({ evaluationStatus: "complete", enabled: true });
    const [other] = (await playground.evaluate(request({ properties: { hostname: "db-1" } }), everyone)).features;
    expect(other!.strategies.data[0]!.result).toEqual({ evaluationStatus: "complete", enabled: false });
  });

  it("evaluates the strategies of a flag that is off in the environment but answers off", async () => {
    const off = flag("off", [strategy()], {
      environments: { development: { enabled: false, strategies: [strategy()], variants: [], lastSeenAt: null } },
    });
    const [feature] = (await playgroundOver([off]).evaluate(request({}), everyone)).features;
    expect(feature).toMatchObject({ isEnabled: false, isEnabledInCurrentEnvironment: false, strategies: { result: true } });
  });

  it("reports an unmet parent, evaluating the parent even from a project not asked for", async () => {
    const parent = flag("parent", [strategy({ constraints: [{ contextName: "userId", operator: "IN", values: ["1"] }] })], {
      project: "team",
    });
    const child = flag("child", [strategy()], { dependencies: [{ feature: "parent", enabled: true, variants: [] }] });
    const playground = playgroundOver([parent, child]);
    const met = await playground.evaluate(request({ userId: "1" }, { projects: ["default"] }), everyone);
    expect(met.features.map((f) => [f.name, f.isEnabled, f.hasUnsatisfiedDependency])).toEqual([["child", true, false]]);
    const unmet = await playground.evaluate(request({ userId: "2" }, { projects: ["default"] }), everyone);
    expect(unmet.features.map((f) => [f.name, f.isEnabled, f.hasUnsatisfiedDependency, f.strategies.result])).toEqual([
      ["child", false, true, true],
    ]);
  });

  it("evaluates the chosen projects' flags an SDK would receive, leaving out projects the caller may not see", async () => {
    const playground = playgroundOver([
      flag("a", [strategy()]),
      flag("b", [strategy()], { project: "team" }),
      flag("hidden", [strategy()], { project: "secret" }),
      flag("elsewhere", [strategy()], { project: "prod-only" }),
      flag("archived", [strategy()], { archived: true }),
    ]);
    const notSecret = async (project: string) => project !== "secret";
    const all = await playground.evaluate(request({}), notSecret);
    expect(all.features.map((f) => f.name)).toEqual(["a", "b"]);
    const team = await playground.evaluate(request({}, { projects: ["team", "secret"] }), notSecret);
    expect(team.features.map((f) => f.name)).toEqual(["b"]);
  });

  it("refuses an unknown environment", async () => {
    await expect(playgroundOver([]).evaluate(request({}, { environment: "staging" }), everyone)).rejects.toThrow(ValidationError);
  });

  it("takes other top-level context fields as properties and the environment from the request", () => {
    expect(toEvaluatorContext({ appName: "a", userId: "u", tier: "gold", beta: true, properties: { region: "eu" } }, "production")).toEqual(
      {
        appName: "a",
        environment: "production",
        userId: "u",
        properties: { tier: "gold", beta: "true", region: "eu" },
      },
    );
  });
});
