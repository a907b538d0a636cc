import { describe, expect, it } from "vitest";
import { compileSnapshot, contextFreeResult, evaluate, evaluateAll, evaluateFeature } from "./index.js";
import type { ClientFeature, ClientStrategy, Context, EvaluateOptions, Variant } from "./index.js";
import { normalizedVariantValue } from "./stickiness.js";

const withRandom = (value: number): EvaluateOptions => ({ random: () => value, now: () => 0 });
const options = withRandom(0.5);

function feature(strategies: ClientStrategy[], extra: Partial<ClientFeature> = {}): ClientFeature {
  return { name: "f", enabled: true, strategies, ...extra };
}

function isOn(strategies: ClientStrategy[], context: Context, opts = options): boolean {
  return evaluate(compileSnapshot({ version: 1, features: [feature(strategies)] }), "f", context, opts).enabled;
}

describe("strategies", () => {
  it("treats an unknown strategy as off and moves on to the next one", () => {
    expect(isOn([{ name: "myCustomStrategy", parameters: {} }], {})).toBe(false);
    expect(isOn([{ name: "myCustomStrategy" }, { name: "default" }], {})).toBe(true);
  });

  it("drops disabled strategies without turning the feature on for everyone", () => {
    expect(isOn([{ name: "default", disabled: true }], {})).toBe(false);
    expect(
      isOn(
        [
          { name: "default", disabled: true },
          { name: "userWithId", parameters: { userIds: "a" } },
        ],
        {},
      ),
    ).toBe(false);
    expect(isOn([], {})).toBe(true);
  });

  it("trims user ids", () => {
    expect(isOn([{ name: "userWithId", parameters: { userIds: " a , b ,c " } }], { userId: "b" })).toBe(true);
    expect(isOn([{ name: "userWithId", parameters: { userIds: " a , b ,c " } }], {})).toBe(false);
  });

  it("matches remote addresses exactly or by IPv4/IPv6 range", () => {
    const strategy = { name: "remoteAddress", parameters: { IPs: "192.168.0.0/16, 2001:db8::/32, localhost" } };
    expect(isOn([strategy], { remoteAddress: "192.168.7.1" })).toBe(true);
    expect(isOn([strategy], { remoteAddress: "2001:db8::9" })).toBe(true);
    expect(isOn([strategy], { remoteAddress: "localhost" })).toBe(true);
    expect(isOn([strategy], { remoteAddress: "10.0.0.1" })).toBe(false);
    expect(isOn([strategy], {})).toBe(false);
  });

  it("reads the application hostname from the context, ignoring case", () => {
    const strategy = { name: "applicationHostname", parameters: { hostNames: "Web-1,web-2" } };
    expect(isOn([strategy], { properties: { hostname: "WEB-1" } })).toBe(true);
    expect(isOn([strategy], { properties: { hostname: "web-3" } })).toBe(false);
    expect(isOn([strategy], {})).toBe(false);
  });

  it("never enables a flexible rollout of 0% or with a missing custom stickiness field", () => {
    const zero = { name: "flexibleRollout", parameters: { rollout: "0", stickiness: "default" } };
    expect(isOn([zero], { userId: "u" })).toBe(false);
    expect(isOn([{ name: "flexibleRollout", parameters: { rollout: "100", stickiness: "tenant" } }], {})).toBe(false);
  });

  it("uses the feature name as group id when a flexible rollout has none", () => {
    const users = Array.from({ length: 200 }, (_, i) => `user-${i}`);
    const parameters = { rollout: "37", stickiness: "userId" };
    const without = users.map((userId) => isOn([{ name: "flexibleRollout", parameters }], { userId }));
    const withName = users.map((userId) => isOn([{ name: "flexibleRollout", parameters: { ...parameters, groupId: "f" } }], { userId }));
    expect(without).toEqual(withName);
    expect(without.filter(Boolean).length).toBeGreaterThan(40);
  });
});

describe("strategy variants", () => {
  it('hash with the strategy\'s groupId as written, "undefined" when it has none, as the Unleash SDKs do', () => {
    const variants: Variant[] = [
      { name: "a", weight: 200, weightType: "fix", stickiness: "default" },
      { name: "b", weight: 800, weightType: "variable", stickiness: "default" },
    ];
    const snapshot = compileSnapshot({ version: 1, features: [feature([{ name: "default", parameters: {}, variants }])] });
    const picked = (userId: string) => evaluate(snapshot, "f", { userId }, options).variant.name;
    // What unleash-client 6 and Unleash 8.2's /api/frontend answer for this flag.
    expect(["user-1", "user-3", "user-9", "user-16", "user-20", "user-22"].map(picked)).toEqual(["a", "a", "b", "b", "a", "b"]);
    for (const userId of ["user-1", "user-9", "user-22"]) {
      const bucket = normalizedVariantValue(userId, "undefined", 1000);
      expect(picked(userId)).toBe(bucket <= 200 ? "a" : "b");
    }
  });
});

describe("injected randomness", () => {
  it("drives gradualRolloutRandom as the SDKs do: percentage >= floor(random * 100) + 1", () => {
    const strategy = { name: "gradualRolloutRandom", parameters: { percentage: "30" } };
    expect(isOn([strategy], {}, withRandom(0.29))).toBe(true);
    expect(isOn([strategy], {}, withRandom(0.3))).toBe(false);
  });

  it("hashes a random id for default stickiness when there is no userId or sessionId", () => {
    const strategy = { name: "flexibleRollout", parameters: { rollout: "50", stickiness: "default", groupId: "g" } };
    const draws = Array.from({ length: 50 }, (_, i) => i / 50);
    const outcomes = draws.map((r) => isOn([strategy], {}, withRandom(r)));
    // The random draw stands in for a user id: round(r * 10000) + 1.
    const asUsers = draws.map((r) => isOn([strategy], { userId: String(Math.round(r * 10000) + 1) }));
    expect(outcomes).toEqual(asUsers);
    expect(new Set(outcomes).size).toBe(2);
  });

  it("picks variants for random stickiness from the injected draw", () => {
    const variants: Variant[] = [
      { name: "a", weight: 500, stickiness: "random" },
      { name: "b", weight: 500, stickiness: "random" },
    ];
    const snapshot = compileSnapshot({ version: 1, features: [feature([], { variants })] });
    const draws = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6];
    const picked = draws.map((r) => evaluate(snapshot, "f", {}, withRandom(r)).variant.name);
    // The SDKs seed random variant stickiness with round(random * 100000).
    const bucket = (r: number) => normalizedVariantValue(String(Math.round(r * 100000)), "f", 1000);
    const expected = draws.map((r) => (bucket(r) <= 500 ? "a" : "b"));
    expect(picked).toEqual(expected);
    expect(new Set(picked).size).toBe(2);
  });
});

describe("variants", () => {
  const users = Array.from({ length: 100 }, (_, i) => String(i));

  it("uses weights as stored, in stored order", () => {
    const variants: Variant[] = [
      { name: "big", weight: 3 },
      { name: "small", weight: 1 },
    ];
    const snapshot = compileSnapshot({ version: 1, features: [feature([], { variants })] });
    for (const userId of users) {
      const expected = normalizedVariantValue(userId, "f", 4) <= 3 ? "big" : "small";
      expect(evaluate(snapshot, "f", { userId }, options).variant.name).toBe(expected);
    }
  });

  it("honours overrides before weights and answers disabled when weights sum to zero", () => {
    const variants: Variant[] = [
      { name: "a", weight: 1 },
      { name: "b", weight: 0, overrides: [{ contextName: "userId", values: ["vip"] }] },
    ];
    const snapshot = compileSnapshot({ version: 1, features: [feature([], { variants })] });
    expect(evaluate(snapshot, "f", { userId: "vip" }, options).variant.name).toBe("b");
    expect(evaluate(snapshot, "f", { userId: "other" }, options).variant.name).toBe("a");

    const zero = compileSnapshot({ version: 1, features: [feature([], { variants: [{ name: "a", weight: 0 }] })] });
    expect(evaluate(zero, "f", {}, options).variant).toEqual({
      name: "disabled",
      enabled: false,
      feature_enabled: true,
      featureEnabled: true,
    });
  });
});

describe("evaluate and evaluateAll", () => {
  const payload = { type: "string", value: "x" };
  const snapshot = compileSnapshot({
    version: 1,
    features: [
      feature([], { name: "on", impressionData: true, variants: [{ name: "v", weight: 1, payload }] }),
      feature([{ name: "default" }], { name: "off", enabled: false }),
    ],
  });

  it("reports unknown features as not existing", () => {
    expect(evaluate(snapshot, "nope", {}, options)).toEqual({
      enabled: false,
      variant: { name: "disabled", enabled: false, feature_enabled: false, featureEnabled: false },
      impressionData: false,
      exists: false,
    });
  });

  it("returns every feature in payload order, enabled or not", () => {
    expect(evaluateAll(snapshot, {}, options)).toEqual([
      {
        name: "on",
        enabled: true,
        variant: { name: "v", enabled: true, payload, feature_enabled: true, featureEnabled: true },
        impressionData: true,
        exists: true,
      },
      {
        name: "off",
        enabled: false,
        variant: { name: "disabled", enabled: false, feature_enabled: false, featureEnabled: false },
        impressionData: false,
        exists: true,
      },
    ]);
  });
});

describe("contextFreeResult", () => {
  const variant = (name: string, weight: number, extra: Partial<Variant> = {}): Variant => ({
    name,
    weight,
    weightType: "variable",
    stickiness: "default",
    ...extra,
  });
  const contexts: Context[] = [
    {},
    { userId: "a" },
    { userId: "b", sessionId: "s" },
    { remoteAddress: "10.0.0.1", properties: { plan: "pro" } },
  ];
  const shapes: Record<string, { features: ClientFeature[]; constant: boolean }> = {
    off: { features: [feature([{ name: "userWithId", parameters: { userIds: "a" } }], { enabled: false })], constant: true },
    "every strategy disabled": { features: [feature([{ name: "default", disabled: true }])], constant: true },
    "no strategies": { features: [feature([])], constant: true },
    "default strategy": {
      features: [feature([{ name: "default" }, { name: "userWithId", parameters: { userIds: "a" } }])],
      constant: true,
    },
    "one weighted variant and one of weight 0": {
      features: [
        feature([{ name: "default", variants: [variant("zero", 0), variant("one", 1000, { payload: { type: "string", value: "x" } })] }]),
      ],
      constant: true,
    },
    "the flag's single variant": { features: [feature([{ name: "default" }], { variants: [variant("only", 1000)] })], constant: true },
    "two variants": { features: [feature([{ name: "default" }], { variants: [variant("a", 500), variant("b", 500)] })], constant: false },
    "a variant override": {
      features: [
        feature([{ name: "default" }], { variants: [variant("a", 1000, { overrides: [{ contextName: "userId", values: ["a"] }] })] }),
      ],
      constant: false,
    },
    "a constraint": {
      features: [feature([{ name: "default", constraints: [{ contextName: "userId", operator: "IN", values: ["a"] }] }])],
      constant: false,
    },
    "a rollout first": {
      features: [feature([{ name: "flexibleRollout", parameters: { rollout: "50" } }, { name: "default" }])],
      constant: false,
    },
    "a parent": {
      features: [feature([{ name: "default" }], { dependencies: [{ feature: "p" }] }), { name: "p", enabled: true, strategies: [] }],
      constant: false,
    },
  };
  it.each(Object.entries(shapes))("%s", (_shape, { features, constant }) => {
    const compiled = compileSnapshot({ version: 1, features }).features.get("f")!;
    const result = contextFreeResult(compiled);
    expect(result !== undefined).toBe(constant);
    if (result) for (const context of contexts) expect(evaluateFeature(compiled, context, options)).toStrictEqual(result);
  });
});
