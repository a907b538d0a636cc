import { describe, expect, it } from "vitest";
import type { ClientFeature } from "@vexil/contracts";
import { compileSnapshot, evaluate } from "@vexil/evaluator";
import { EnvironmentSnapshot, type SnapshotTexts } from "./environment-snapshot.js";

const options = { random: () => 0.5, now: () => 0 };

function feature(name: string, enabled: boolean, overrides: Partial<ClientFeature> = {}): ClientFeature {
  return {
    name,
    type: "release",
    description: null,
    project: "default",
    enabled,
    stale: false,
    impressionData: false,
    strategies: [{ name: "default", constraints: [], parameters: {} }],
    variants: [],
    ...overrides,
  };
}

const stored = (revision: number, features: ClientFeature[]): SnapshotTexts => ({
  environment: "development",
  revision,
  features: features.map((f) => [f.name, JSON.stringify(f)] as const),
  segments: [],
});

describe("EnvironmentSnapshot", () => {
  const child = feature("child", true, { dependencies: [{ feature: "parent", enabled: true }] });
  const first = EnvironmentSnapshot.from(stored(1, [child, feature("other", true), feature("parent", true)])).snapshot;

  it("recompiles a changed parent's children so dependencies follow the new parent", () => {
    const { snapshot, changes } = EnvironmentSnapshot.from(stored(2, [child, feature("other", true), feature("parent", false)]), first);
    expect(changes).toEqual([{ eventId: 2, type: "feature-updated", feature: feature("parent", false) }]);
    expect(evaluate(snapshot.compiled, "child", {}, options).enabled).toBe(false);
    // Untouched flags keep their compiled form.
    expect(snapshot.compiled.features.get("other")).toBe(first.compiled.features.get("other"));
    expect([...snapshot.compiled.features.keys()]).toEqual(["child", "other", "parent"]);
  });

  it("evaluates like a full compilation after a parent is removed", () => {
    const { snapshot, changes } = EnvironmentSnapshot.from(stored(3, [child, feature("other", true)]), first);
    expect(changes).toEqual([{ eventId: 3, type: "feature-removed", featureName: "parent", project: "default" }]);
    const full = compileSnapshot({ version: 2, features: [child, feature("other", true)] });
    for (const name of ["child", "other", "parent"]) {
      expect(evaluate(snapshot.compiled, name, {}, options)).toEqual(evaluate(full, name, {}, options));
    }
  });

  it("reports nothing and reuses parsed flags when only the revision moved", () => {
    const { snapshot, changes } = EnvironmentSnapshot.from(stored(4, [child, feature("other", true), feature("parent", true)]), first);
    expect(changes).toEqual([]);
    expect(snapshot.features.get("child")).toBe(first.features.get("child"));
  });
});
