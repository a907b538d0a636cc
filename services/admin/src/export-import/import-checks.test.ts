import type { ImportToggles } from "@vexil/contracts";
import { describe, expect, it } from "vitest";
import type { FeatureDocument } from "../features/feature-model.js";
import { checkImport, planImport, type ImportTarget } from "./import-checks.js";

const flag = (name: string, project: string, archived = false) =>
  ({ _id: name, project, archived, dependencies: [] }) as unknown as FeatureDocument;

function target(overrides: Partial<ImportTarget> = {}): ImportTarget {
  return {
    project: { _id: "web", featureLimit: null, featureNaming: null },
    projectEnvironments: ["development", "production"],
    existing: new Map(),
    liveInProject: 0,
    strategies: [
      { name: "default", editable: false },
      { name: "flexibleRollout", editable: false },
      { name: "tenant", editable: true },
    ],
    contextFields: [
      { name: "tier", description: null, stickiness: false, sortOrder: 0, legalValues: [{ value: "gold" }], createdAt: null },
    ],
    segments: [
      { id: 7, name: "beta", project: null, constraints: [], createdAt: "2026-01-01T00:00:00.000Z" },
      { id: 8, name: "other-team", project: "mobile", constraints: [], createdAt: "2026-01-01T00:00:00.000Z" },
    ],
    ...overrides,
  };
}

function input(data: Partial<ImportToggles["data"]> = {}): ImportToggles {
  return { project: "web", environment: "production", data: { features: [{ name: "a" }], featureStrategies: [], tagTypes: [], ...data } };
}

const check = (body: ImportToggles, where: ImportTarget) => checkImport(body, planImport(body, where), where);

describe("import checks", () => {
  it("accepts a clean import and maps segments by name to those the project may use", () => {
    const body = input({ segments: [{ id: 1, name: "beta" }], featureStrategies: [{ name: "default", featureName: "a", segments: [1] }] });
    expect(check(body, target())).toEqual({ errors: [], warnings: [], permissions: [] });
    expect(planImport(body, target()).segmentIds).toEqual(new Map([[1, 7]]));
  });

  it("lists every reason to refuse, each with the items it concerns", () => {
    const body = input({
      features: [{ name: "a" }, { name: "a" }, { name: "taken" }, { name: "odd", type: "weird" }],
      featureStrategies: [
        { name: "nope", featureName: "a" },
        { name: "default", featureName: "ghost", segments: [2] },
      ],
      segments: [{ id: 2, name: "other-team" }],
      contextFields: [{ name: "tier", legalValues: [{ value: "platinum" }] }],
      dependencies: [{ feature: "a", dependencies: [{ feature: "missing-parent" }, { feature: "taken" }] }],
    });
    const { errors } = check(body, target({ existing: new Map([["taken", flag("taken", "mobile")]]) }));
    const byMessage = Object.fromEntries(errors.map((e) => [e.message.split(" ").slice(0, 6).join(" "), e.affectedItems]));
    expect(byMessage).toMatchObject({
      "We detected the following custom strategy": ["nope"],
      "We detected the following context fields": ["tier"],
      "You cannot import a features that": ["taken (in project mobile)"],
      "We detected the following features are": ["a"],
      "We detected the following segments that": ["other-team"],
      "We detected the following dependencies that": ["missing-parent"],
      "A flag can depend on one": ["a"],
      "These flags have a type other": ["odd"],
      "The data refers to flags that": ["ghost"],
    });
  });

  it("refuses an unknown project or an environment the project does not have", () => {
    expect(check(input(), target({ project: null })).errors[0]).toEqual({ message: "Project web does not exist.", affectedItems: ["web"] });
    expect(check({ ...input(), environment: "staging" }, target()).errors[0]?.affectedItems).toEqual(["staging"]);
  });

  it("holds the project's naming pattern and flag limit", () => {
    const naming = { pattern: "^web-.+$", example: "web-login", description: null };
    const body = input({ features: [{ name: "web-ok" }, { name: "bad" }, { name: "kept" }] });
    const where = target({
      project: { _id: "web", featureLimit: 3, featureNaming: naming },
      liveInProject: 2,
      existing: new Map([["kept", flag("kept", "web")]]),
    });
    const messages = check(body, where).errors.map((e) => e.message);
    expect(messages.find((m) => m.includes("naming pattern"))).toContain("^web-.+$");
    expect(messages.find((m) => m.includes("maximum limit"))).toBe(
      "We detected you want to create 2 new features to a project that already has 2 existing features, exceeding the maximum limit of 3.",
    );
  });

  it("skips flags archived in the target, warns about overwrites, custom strategies and links", () => {
    const body = input({
      features: [{ name: "a" }, { name: "old" }],
      featureStrategies: [
        { name: "tenant", featureName: "a" },
        { name: "default", featureName: "old" },
      ],
      featureTags: [{ featureName: "old", tagType: "simple", tagValue: "gone" }],
      links: [{ feature: "a", links: [{ url: "https://example.com" }] }],
    });
    const where = target({
      existing: new Map([
        ["a", flag("a", "web")],
        ["old", flag("old", "web", true)],
      ]),
    });
    const plan = planImport(body, where);
    expect(plan.data.features.map((f) => f.name)).toEqual(["a"]);
    expect(plan.data.featureStrategies.map((s) => s.featureName)).toEqual(["a"]);
    expect(plan.data.featureTags).toEqual([]);
    const { errors, warnings } = checkImport(body, plan, where);
    expect(errors).toEqual([]);
    expect(warnings.map((w) => w.affectedItems)).toEqual([["tenant"], ["old"], ["a"], ["a"]]);
  });
});
