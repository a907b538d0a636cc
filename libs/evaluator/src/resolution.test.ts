import { describe, expect, it } from "vitest";
import { compileSnapshot, evaluateFeature, evaluateWithResolution } from "./index.js";
import type { ClientFeature, ClientStrategy, Context, EvaluateOptions, Variant } from "./index.js";

const options: EvaluateOptions = { random: () => 0.5, now: () => 0 };

function resolve(
  strategies: ClientStrategy[] | undefined,
  context: Context,
  extra: Partial<ClientFeature> = {},
  others: ClientFeature[] = [],
) {
  const snapshot = compileSnapshot({ version: 1, features: [{ name: "f", enabled: true, strategies, ...extra }, ...others] });
  const feature = snapshot.features.get("f")!;
  const { result, resolution } = evaluateWithResolution(feature, context, options);
  // The answer is exactly the one the SDK paths give.
  expect(result).toEqual(evaluateFeature(feature, context, options));
  return { enabled: result.enabled, variant: result.variant.name, resolution };
}

const variant = (name: string, weight: number, extra: Partial<Variant> = {}): Variant => ({
  name,
  weight,
  weightType: "variable",
  stickiness: "default",
  ...extra,
});
const onlyAlice = { contextName: "userId", operator: "IN", values: ["alice"] };

describe("evaluateWithResolution", () => {
  it("says DISABLED for a feature off in the environment, whoever asks", () => {
    expect(resolve([{ name: "default" }], { userId: "alice" }, { enabled: false })).toEqual({
      enabled: false,
      variant: "disabled",
      resolution: "DISABLED",
    });
  });

  it("says STATIC when every context gets the same answer", () => {
    expect(resolve([{ name: "default" }], {})).toMatchObject({ enabled: true, resolution: "STATIC" });
    expect(resolve([], {})).toMatchObject({ enabled: true, resolution: "STATIC" });
    const everyone = { name: "flexibleRollout", parameters: { rollout: "100", stickiness: "default", groupId: "f" } };
    expect(resolve([everyone], {})).toMatchObject({ enabled: true, resolution: "STATIC" });
    expect(resolve([{ name: "default", variants: [variant("only", 1000)] }], {})).toMatchObject({ variant: "only", resolution: "STATIC" });
  });

  it("says TARGETING_MATCH when constraints, lists, a sticky field or an override decided, and DEFAULT when nothing matched", () => {
    expect(resolve([{ name: "default", constraints: [onlyAlice] }], { userId: "alice" })).toMatchObject({
      enabled: true,
      resolution: "TARGETING_MATCH",
    });
    expect(resolve([{ name: "default", constraints: [onlyAlice] }], { userId: "bob" })).toMatchObject({
      enabled: false,
      resolution: "DEFAULT",
    });
    expect(resolve([{ name: "default", constraints: [onlyAlice] }], {})).toMatchObject({ enabled: false, resolution: "DEFAULT" });
    expect(resolve([{ name: "userWithId", parameters: { userIds: "alice" } }], { userId: "alice" })).toMatchObject({
      resolution: "TARGETING_MATCH",
    });
    const byTenant = { name: "flexibleRollout", parameters: { rollout: "100", stickiness: "tenant", groupId: "f" } };
    expect(resolve([byTenant], { properties: { tenant: "t1" } })).toMatchObject({ enabled: true, resolution: "TARGETING_MATCH" });
    expect(resolve([byTenant], {})).toMatchObject({ enabled: false, resolution: "DEFAULT" });
    const variants = [
      variant("premium", 0, { weightType: "fix", overrides: [{ contextName: "plan", values: ["premium"] }] }),
      variant("basic", 1000),
    ];
    expect(resolve([{ name: "default" }], { properties: { plan: "premium" } }, { variants })).toMatchObject({
      variant: "premium",
      resolution: "TARGETING_MATCH",
    });
    expect(resolve([{ name: "default" }], { properties: { plan: "free" } }, { variants })).toMatchObject({
      variant: "basic",
      resolution: "TARGETING_MATCH",
    });
    // A later strategy that matches everyone is still a fallback after the targeted first one.
    expect(resolve([{ name: "default", constraints: [onlyAlice] }, { name: "default" }], { userId: "bob" })).toMatchObject({
      resolution: "TARGETING_MATCH",
    });
  });

  it("says SPLIT when a rollout share or a weighted variant drew the context", () => {
    const half = { name: "flexibleRollout", parameters: { rollout: "50", stickiness: "default", groupId: "f" } };
    const users = Array.from({ length: 40 }, (_, i) => resolve([half], { userId: `user-${i}` }));
    expect(users.filter((u) => u.enabled).every((u) => u.resolution === "SPLIT")).toBe(true);
    expect(users.filter((u) => !u.enabled).every((u) => u.resolution === "DEFAULT")).toBe(true);
    expect(new Set(users.map((u) => u.enabled))).toEqual(new Set([true, false]));
    expect(resolve([{ name: "gradualRolloutRandom", parameters: { percentage: "99" } }], {})).toMatchObject({
      enabled: true,
      resolution: "SPLIT",
    });
    const ab = [variant("a", 500), variant("b", 500)];
    expect(resolve([{ name: "default", variants: ab }], { userId: "alice" })).toMatchObject({ enabled: true, resolution: "SPLIT" });
    expect(resolve([{ name: "default" }], { userId: "alice" }, { variants: ab })).toMatchObject({ enabled: true, resolution: "SPLIT" });
  });

  it("says TARGETING_MATCH for a feature whose parent decided", () => {
    const parent: ClientFeature = { name: "parent", enabled: true, strategies: [{ name: "default" }] };
    expect(resolve([{ name: "default" }], {}, { dependencies: [{ feature: "parent" }] }, [parent])).toMatchObject({
      enabled: true,
      resolution: "TARGETING_MATCH",
    });
    expect(resolve([{ name: "default" }], {}, { dependencies: [{ feature: "parent", enabled: false }] }, [parent])).toMatchObject({
      enabled: false,
      resolution: "DEFAULT",
    });
  });
});
