import { describe, expect, it } from "vitest";
import type { z } from "zod";
import {
  addonRequestSchema,
  addonSchema,
  apiTokenListSchema,
  changeRequestBodySchema,
  changeRequestSchema,
  cloneFeatureBodySchema,
  constraintSchema,
  createTagBodySchema,
  enableFeatureQuerySchema,
  featureSchema,
  feedbackInputSchema,
  feedbackSchema,
  frontendContextQuerySchema,
  frontendResultSchema,
  healthReportSchema,
  jsonPatchSchema,
  publicSignupTokenSchema,
  publicSignupTokenUpdateSchema,
  samlSettingsSchema,
  segmentIdParamsSchema,
  segmentSchema,
  segmentUpsertSchema,
  setEnvironmentVariantsBodySchema,
  strategyListSchema,
  strategyVariantSchema,
  tagSchema,
} from "./index.js";

/** The paths of the issues a rejected input produced, joined with dots. */
function rejectedPaths(schema: z.ZodTypeAny, input: unknown): string[] {
  const result = schema.safeParse(input);
  expect(result.success, "expected the input to be rejected").toBe(false);
  return result.success ? [] : result.error.issues.map((issue) => issue.path.join("."));
}

describe("constraint", () => {
  it("accepts the spec's operators and the newer SDK ones", () => {
    for (const operator of ["IN", "NOT_IN", "DATE_AFTER", "SEMVER_LT", "REGEX", "IN_CIDR", "SEMVER_GTE", "SEMVER_LTE"]) {
      expect(constraintSchema.parse({ contextName: "userId", operator, values: ["a"] }).operator).toBe(operator);
    }
  });

  it("keeps flags and single values", () => {
    expect(
      constraintSchema.parse({ contextName: "appVersion", operator: "SEMVER_GT", value: "1.2.3", inverted: true, caseInsensitive: false }),
    ).toEqual({ contextName: "appVersion", operator: "SEMVER_GT", value: "1.2.3", inverted: true, caseInsensitive: false });
  });

  it("rejects an unknown operator and a missing contextName by field", () => {
    expect(rejectedPaths(constraintSchema, { contextName: "userId", operator: "EQUALS" })).toEqual(["operator"]);
    expect(rejectedPaths(constraintSchema, { operator: "IN", values: [] })).toEqual(["contextName"]);
    expect(rejectedPaths(constraintSchema, { contextName: "x", operator: "IN", values: [1] })).toEqual(["values.0"]);
  });
});

describe("strategy variant", () => {
  const valid = { name: "blue", weight: 500, weightType: "variable", stickiness: "default" };

  it("accepts a spec-valid variant with a payload", () => {
    expect(strategyVariantSchema.parse({ ...valid, payload: { type: "json", value: "{}" } })).toMatchObject(valid);
  });

  it.each([
    [{ ...valid, weight: 1001 }, "weight"],
    [{ ...valid, weight: -1 }, "weight"],
    [{ ...valid, weight: 12.5 }, "weight"],
    [{ ...valid, weightType: "fixed" }, "weightType"],
    [{ ...valid, stickiness: undefined }, "stickiness"],
    [{ ...valid, payload: { type: "xml", value: "<a/>" } }, "payload.type"],
    [{ ...valid, payload: { type: "string" } }, "payload.value"],
  ])("rejects %j at %s", (input, path) => {
    expect(rejectedPaths(strategyVariantSchema, input)).toEqual([path]);
  });
});

describe("feature variants list (PUT .../environments/:environment/variants)", () => {
  it("accepts variable variants and fix weights below 1000", () => {
    const variants = [
      { name: "a", weight: 300, weightType: "fix", stickiness: "userId" },
      { name: "b", weight: 0, weightType: "variable", overrides: [{ contextName: "userId", values: ["1"] }] },
      { name: "c", weight: 0 },
    ];
    expect(setEnvironmentVariantsBodySchema.parse(variants)).toHaveLength(3);
    expect(setEnvironmentVariantsBodySchema.parse([])).toEqual([]);
  });

  it("requires at least one variable variant", () => {
    const result = setEnvironmentVariantsBodySchema.safeParse([{ name: "a", weight: 100, weightType: "fix" }]);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0].message).toMatch(/at least one variant with weightType 'variable'/);
  });

  it("rejects fix weights summing to 1000", () => {
    const result = setEnvironmentVariantsBodySchema.safeParse([
      { name: "a", weight: 600, weightType: "fix" },
      { name: "b", weight: 400, weightType: "fix" },
      { name: "c", weight: 0, weightType: "variable" },
    ]);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([
      "The weights of 'fix' variants must sum to less than 1000 (got 1000)",
    ]);
  });

  it("rejects duplicate names and bad overrides by path", () => {
    expect(
      rejectedPaths(setEnvironmentVariantsBodySchema, [
        { name: "a", weight: 0 },
        { name: "a", weight: 0 },
      ]),
    ).toEqual(["1.name"]);
    expect(rejectedPaths(setEnvironmentVariantsBodySchema, [{ name: "a", weight: 0, overrides: [{ contextName: "userId" }] }])).toEqual([
      "0.overrides.0.values",
    ]);
  });
});

describe("tag", () => {
  it("trims surrounding whitespace after checking the pattern", () => {
    expect(tagSchema.parse({ value: "  release-1  ", type: "simple" })).toEqual({ value: "release-1", type: "simple" });
    expect(tagSchema.parse({ value: "ab", type: "simple" }).value).toBe("ab");
    expect(tagSchema.parse({ value: "x".repeat(50), type: "simple" }).value).toHaveLength(50);
  });

  it.each([
    ["a", "too short"],
    ["   a   ", "one visible character"],
    ["x".repeat(51), "too long"],
    ["      ", "only whitespace"],
  ])("rejects value %j (%s)", (value) => {
    expect(rejectedPaths(tagSchema, { value, type: "simple" })).toContain("value");
  });

  it("requires a 2..50 character type", () => {
    expect(rejectedPaths(tagSchema, { value: "ok", type: "s" })).toEqual(["type"]);
    expect(rejectedPaths(tagSchema, { value: "ok" })).toEqual(["type"]);
  });

  it("creation needs the value and the type", () => {
    expect(createTagBodySchema.parse({ value: " beta ", type: "simple" })).toEqual({ value: "beta", type: "simple" });
    expect(rejectedPaths(createTagBodySchema, { value: "beta" })).toEqual(["type"]);
    expect(rejectedPaths(createTagBodySchema, { type: "simple" })).toEqual(["value"]);
  });
});

describe("SAML settings", () => {
  it("accepts disabled settings with no other field", () => {
    expect(samlSettingsSchema.parse({ enabled: false })).toEqual({ enabled: false });
    expect(samlSettingsSchema.parse({})).toEqual({});
  });

  it("accepts enabled settings with the three required fields", () => {
    const settings = {
      enabled: true,
      entityId: "https://idp.example.com",
      signOnUrl: "https://idp.example.com/sso",
      certificate: "MIIC...",
      autoCreate: true,
      defaultRootRole: "Editor",
    };
    expect(samlSettingsSchema.parse(settings)).toEqual(settings);
  });

  it("names each field missing when enabled", () => {
    expect(rejectedPaths(samlSettingsSchema, { enabled: true })).toEqual(["entityId", "signOnUrl", "certificate"]);
    const result = samlSettingsSchema.safeParse({ enabled: true, entityId: "e", signOnUrl: "u", certificate: "  " });
    expect(result.error?.issues).toEqual([
      expect.objectContaining({ path: ["certificate"], message: "certificate is required when SAML is enabled" }),
    ]);
  });

  it("rejects an unknown root role", () => {
    expect(rejectedPaths(samlSettingsSchema, { defaultRootRole: "Owner" })).toEqual(["defaultRootRole"]);
  });
});

describe("change request changes (POST .../change-requests)", () => {
  const examples = [
    { action: "updateSegment", payload: { id: 3, name: "beta", constraints: [] } },
    { action: "deleteSegment", payload: { id: 3 } },
    { action: "updateEnabled", feature: "f", payload: { enabled: true, shouldActivateDisabledStrategies: false } },
    {
      action: "addStrategy",
      feature: "f",
      payload: { name: "flexibleRollout", constraints: [], parameters: { rollout: 50, groupId: "f" }, segments: [1] },
    },
    { action: "updateStrategy", feature: "f", payload: { id: "s1", name: "default", title: null } },
    { action: "deleteStrategy", feature: "f", payload: { id: "s1" } },
    { action: "archiveFeature", feature: "f" },
    { action: "patchVariant", feature: "f", payload: { variants: [{ name: "a", weight: 0, weightType: "variable" }] } },
    {
      action: "reorderStrategy",
      feature: "f",
      payload: [
        { id: "s1", sortOrder: 0 },
        { id: "s2", sortOrder: 1 },
      ],
    },
    { action: "addDependency", feature: "f", payload: { feature: "parent" } },
    { action: "deleteDependency", feature: "f" },
  ];

  it("accepts every action, one at a time, and always yields an array", () => {
    for (const change of examples) {
      const parsed = changeRequestBodySchema.parse(change);
      expect(parsed).toHaveLength(1);
      expect(parsed[0].action).toBe(change.action);
    }
  });

  it("accepts an array of changes and applies payload defaults", () => {
    const parsed = changeRequestBodySchema.parse(examples);
    expect(parsed).toHaveLength(11);
    const dependency = parsed.find((change) => change.action === "addDependency");
    expect(dependency).toEqual({ action: "addDependency", feature: "f", payload: { feature: "parent", enabled: true } });
    const strategy = parsed.find((change) => change.action === "addStrategy");
    expect(strategy?.action === "addStrategy" && strategy.payload.parameters.rollout).toBe("50");
  });

  it.each([
    [{ action: "renameFeature", feature: "f" }, "0.action"],
    [{ action: "updateEnabled", payload: { enabled: true } }, "0.feature"],
    [{ action: "updateEnabled", feature: "f", payload: {} }, "0.payload.enabled"],
    [{ action: "addStrategy", feature: "f", payload: { name: "default", constraints: [] } }, "0.payload.parameters"],
    [{ action: "addStrategy", feature: "f", payload: { name: "default", parameters: {} } }, "0.payload.constraints"],
    [{ action: "updateStrategy", feature: "f", payload: { name: "default" } }, "0.payload.id"],
    [{ action: "deleteSegment", payload: { id: "three" } }, "0.payload.id"],
    [{ action: "updateSegment", payload: { name: "x", constraints: [] } }, "0.payload.id"],
    [{ action: "reorderStrategy", feature: "f", payload: [{ id: "s1" }] }, "0.payload.0.sortOrder"],
    [{ action: "addDependency", feature: "f", payload: {} }, "0.payload.feature"],
    [{ action: "patchVariant", feature: "f", payload: { variants: [{ name: "a", weight: 2000 }] } }, "0.payload.variants.0.weight"],
  ])("rejects %j at %s", (change, path) => {
    expect(rejectedPaths(changeRequestBodySchema, change)).toEqual([path]);
  });

  it("rejects an empty array and a second bad change by its index", () => {
    expect(rejectedPaths(changeRequestBodySchema, [])).toEqual([""]);
    expect(rejectedPaths(changeRequestBodySchema, [examples[0], { action: "deleteStrategy", feature: "f", payload: {} }])).toEqual([
      "1.payload.id",
    ]);
  });

  it("accepts a change request response and keeps fields the spec does not show", () => {
    const response = {
      id: 1,
      title: "Change request #1",
      environment: "production",
      minApprovals: 1,
      project: "default",
      features: [
        {
          name: "f",
          changes: [{ id: 7, action: "updateEnabled", payload: { enabled: true }, createdBy: { username: "ada", imageUrl: null } }],
          defaultChange: { action: "addStrategy", payload: { name: "flexibleRollout" } },
        },
      ],
      segments: [{ id: 8, action: "deleteSegment", payload: { id: 3 }, name: "beta" }],
      approvals: [
        { createdBy: { id: 2, username: "bob", imageUrl: "https://gravatar.com/avatar/x" }, createdAt: "2024-05-01T12:00:00.000Z" },
      ],
      rejections: [],
      state: "In review",
      comments: [],
    };
    expect(changeRequestSchema.parse(response)).toMatchObject({ state: "In review", comments: [] });
    expect(rejectedPaths(changeRequestSchema, { ...response, segments: [{ id: 8, action: "deleteSegment", payload: {} }] })).toEqual([
      "segments.0.name",
    ]);
  });
});

describe("JSON patch", () => {
  it("accepts each operation with the fields it needs", () => {
    const patch = [
      { op: "replace", path: "/description", value: "new" },
      { op: "add", path: "/impressionData", value: null },
      { op: "remove", path: "/stale" },
      { op: "copy", from: "/a", path: "/b" },
      { op: "move", from: "/a", path: "/c" },
    ];
    expect(jsonPatchSchema.parse(patch)).toHaveLength(5);
  });

  it.each([
    [[{ op: "test", path: "/a", value: 1 }], "0.op"],
    [[{ op: "replace", value: 1 }], "0.path"],
    [[{ op: "replace", path: "/a" }], "0.value"],
    [[{ op: "move", path: "/a" }], "0.from"],
    [
      [
        { op: "remove", path: "/a" },
        { op: "copy", path: "/b" },
      ],
      "1.from",
    ],
  ])("rejects %j at %s", (patch, path) => {
    expect(rejectedPaths(jsonPatchSchema, patch)).toEqual([path]);
  });

  it("requires an array", () => {
    expect(rejectedPaths(jsonPatchSchema, { op: "remove", path: "/a" })).toEqual([""]);
  });
});

describe("segments", () => {
  it("accepts an upsert and strips unknown fields", () => {
    expect(segmentUpsertSchema.parse({ name: "beta", constraints: [], extra: 1 })).toEqual({ name: "beta", constraints: [] });
  });

  it("requires name and constraints", () => {
    expect(rejectedPaths(segmentUpsertSchema, { description: null })).toEqual(["name", "constraints"]);
  });

  it("requires createdAt in a response and parses path ids", () => {
    expect(rejectedPaths(segmentSchema, { id: 1, name: "beta", constraints: [] })).toEqual(["createdAt"]);
    expect(segmentIdParamsSchema.parse({ id: "7" })).toEqual({ id: 7 });
    expect(rejectedPaths(segmentIdParamsSchema, { id: "seven" })).toEqual(["id"]);
  });
});

describe("addons", () => {
  it("requires provider, enabled, parameters and events in a request", () => {
    expect(
      addonRequestSchema.parse({ provider: "webhook", enabled: true, parameters: { url: "https://x" }, events: ["feature-created"] }),
    ).toMatchObject({ provider: "webhook" });
    expect(rejectedPaths(addonRequestSchema, { provider: "webhook" })).toEqual(["enabled", "parameters", "events"]);
  });

  it("requires an id of at least 1 and a (nullable) description in a response", () => {
    const addon = { id: 1, provider: "webhook", description: null, enabled: true, parameters: {}, events: [] };
    expect(addonSchema.parse(addon)).toEqual(addon);
    expect(rejectedPaths(addonSchema, { ...addon, id: 0 })).toEqual(["id"]);
    const { description: _description, ...withoutDescription } = addon;
    expect(rejectedPaths(addonSchema, withoutDescription)).toEqual(["description"]);
  });
});

describe("public signup tokens", () => {
  it("accepts an empty update and rejects a non-ISO expiresAt", () => {
    expect(publicSignupTokenUpdateSchema.parse({})).toEqual({});
    expect(publicSignupTokenUpdateSchema.parse({ expiresAt: "2030-01-01T00:00:00+02:00", enabled: false })).toEqual({
      expiresAt: "2030-01-01T00:00:00+02:00",
      enabled: false,
    });
    expect(rejectedPaths(publicSignupTokenUpdateSchema, { expiresAt: "next week" })).toEqual(["expiresAt"]);
    expect(rejectedPaths(publicSignupTokenUpdateSchema, { enabled: "yes" })).toEqual(["enabled"]);
  });

  it("requires url and createdBy to be present even when null", () => {
    const token = {
      secret: "abc",
      url: null,
      name: "invite",
      enabled: true,
      expiresAt: "2030-01-01T00:00:00.000Z",
      createdAt: "2024-01-01T00:00:00.000Z",
      createdBy: null,
      role: { id: 3, type: "root", name: "Viewer" },
    };
    expect(publicSignupTokenSchema.parse(token)).toEqual(token);
    const { url: _url, ...withoutUrl } = token;
    expect(rejectedPaths(publicSignupTokenSchema, withoutUrl)).toEqual(["url"]);
  });
});

describe("other resources", () => {
  it("feature: only name is required; lifecycle stages are the spec's", () => {
    expect(featureSchema.parse({ name: "f" })).toEqual({ name: "f" });
    expect(rejectedPaths(featureSchema, { name: "f", lifecycle: { stage: "beta", enteredStageAt: "2024-01-01T00:00:00Z" } })).toEqual([
      "lifecycle.stage",
    ]);
  });

  it("clone body defaults replaceGroupId to true", () => {
    expect(cloneFeatureBodySchema.parse({ name: "copy" })).toEqual({ name: "copy", replaceGroupId: true });
    expect(rejectedPaths(cloneFeatureBodySchema, {})).toEqual(["name"]);
  });

  it("enable query reads only the literal 'true'", () => {
    expect(enableFeatureQuerySchema.parse({ shouldActivateDisabledStrategies: "true" })).toEqual({
      shouldActivateDisabledStrategies: true,
    });
    expect(enableFeatureQuerySchema.parse({})).toEqual({ shouldActivateDisabledStrategies: false });
  });

  it("health report requires the counts", () => {
    const report = {
      version: 1,
      name: "default",
      defaultStickiness: "default",
      mode: "open",
      members: 0,
      health: 100,
      environments: [{ environment: "production", defaultStrategy: { name: "flexibleRollout", constraints: [] } }],
      features: [],
      potentiallyStaleCount: 0,
      activeCount: 0,
      staleCount: 0,
    };
    expect(healthReportSchema.parse(report)).toMatchObject({ name: "default" });
    expect(rejectedPaths(healthReportSchema, { ...report, mode: "closed", staleCount: undefined })).toEqual(["mode", "staleCount"]);
  });

  it("strategy list accepts only version 1", () => {
    const list = {
      version: 1,
      strategies: [{ name: "default", displayName: null, description: null, editable: false, deprecated: false, parameters: [] }],
    };
    expect(strategyListSchema.parse(list)).toEqual(list);
    expect(rejectedPaths(strategyListSchema, { ...list, version: 2 })).toEqual(["version"]);
  });

  it("api tokens have a closed set of types", () => {
    const token = {
      secret: "default:development.abc",
      tokenName: "t",
      type: "client",
      project: "default",
      projects: ["default"],
      createdAt: "2024-01-01T00:00:00Z",
    };
    expect(apiTokenListSchema.parse({ tokens: [token] }).tokens).toHaveLength(1);
    expect(rejectedPaths(apiTokenListSchema, { tokens: [{ ...token, type: "root" }] })).toEqual(["tokens.0.type"]);
  });

  it("frontend context query passes unknown parameters through", () => {
    expect(frontendContextQuerySchema.parse({ userId: "u1", properties: { tier: "gold" }, region: "eu" })).toEqual({
      userId: "u1",
      properties: { tier: "gold" },
      region: "eu",
    });
    expect(rejectedPaths(frontendContextQuerySchema, { properties: { tier: { nested: "x" } } })).toEqual(["properties.tier"]);
  });

  it("frontend result carries variants with feature_enabled", () => {
    const result = {
      toggles: [
        {
          name: "f",
          enabled: true,
          impressionData: false,
          variant: { name: "disabled", enabled: false, feature_enabled: true, featureEnabled: true },
        },
      ],
    };
    expect(frontendResultSchema.parse(result)).toEqual(result);
    expect(rejectedPaths(frontendResultSchema, { toggles: [{ name: "f", enabled: true }] })).toEqual(["toggles.0.impressionData"]);
  });

  it("feedback input needs a category; output needs every field present", () => {
    expect(feedbackInputSchema.parse({ category: "general", difficultyScore: null })).toEqual({
      category: "general",
      difficultyScore: null,
    });
    expect(rejectedPaths(feedbackInputSchema, { userType: "dev" })).toEqual(["category"]);
    expect(rejectedPaths(feedbackSchema, { id: 1, createdAt: "2024-01-01T00:00:00Z", category: "general" })).toEqual([
      "userType",
      "difficultyScore",
      "positive",
      "areasForImprovement",
    ]);
  });
});
