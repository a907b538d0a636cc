import { describe, expect, it } from "vitest";
import type { ClientFeature } from "@vexil/contracts";
import { compileSnapshot, evaluate } from "@vexil/evaluator";
import { EnvironmentSnapshot, nextSnapshot, type SnapshotTexts } from "./environment-snapshot.js";

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

describe("EnvironmentSnapshot.rebuiltInTurns", () => {
  const flags = Array.from({ length: 200 }, (_, i) =>
    feature(`f${String(i).padStart(3, "0")}`, i % 3 !== 0, i % 7 === 0 ? { dependencies: [{ feature: "f001", enabled: true }] } : {}),
  );

  it("builds what a rebuild in one go builds, handing the event loop back between slices", async () => {
    const held = EnvironmentSnapshot.from(stored(3, flags)).snapshot;
    let turns = 0;
    const counting = setInterval(() => turns++, 0);
    // A slice of 0 ms pauses after every flag.
    const inTurns = await held.rebuiltInTurns(0).finally(() => clearInterval(counting));
    expect(turns).toBeGreaterThan(0);
    const whole = held.rebuilt();
    expect(inTurns.revision).toBe(3);
    expect([...inTurns.featureJson]).toEqual([...whole.featureJson]);
    expect([...inTurns.compiled.features.keys()]).toEqual([...whole.compiled.features.keys()]);
    for (const { name } of flags) {
      const context = { userId: "u1" };
      expect(evaluate(inTurns.compiled, name, context, options)).toEqual(evaluate(whole.compiled, name, context, options));
    }
  });

  it("holds the snapshot as it was when asked, whatever is patched into it meanwhile", async () => {
    const held = EnvironmentSnapshot.from(stored(3, flags)).snapshot;
    const texts = [...held.featureJson];
    const rebuilding = held.rebuiltInTurns(0);
    // A change patches the held snapshot's maps in place while the rebuild is under way.
    nextSnapshot(held, { revision: 4, features: new Map([["f002", null]]), segments: held.segments });
    const rebuilt = await rebuilding;
    expect(rebuilt.revision).toBe(3);
    expect([...rebuilt.featureJson]).toEqual(texts);
    expect(rebuilt.compiled.features.has("f002")).toBe(true);
  });
});

describe("nextSnapshot (the changed flags only)", () => {
  /** Deterministic pseudo-random numbers, so a failure repeats. */
  function rng(seed: number) {
    let state = seed;
    return (below: number) => {
      state = (state * 1664525 + 1013904223) % 4294967296;
      return Math.floor((state / 4294967296) * below);
    };
  }

  it("builds what a whole read builds: same flags in name order, same compiled answers, same events", () => {
    const random = rng(5);
    const names = Array.from({ length: 30 }, (_, i) => `f${String(i).padStart(2, "0")}`);
    const flagOf = (name: string, revision: number) =>
      feature(name, random(2) === 1, {
        project: `p${random(2)}`,
        ...(random(4) === 0 ? { dependencies: [{ feature: names[random(names.length)]!, enabled: true }] } : {}),
        description: `r${revision}`,
      });
    let current = new Map(names.slice(0, 10).map((name) => [name, flagOf(name, 1)]));
    const texts = (revision: number) =>
      stored(
        revision,
        [...current.values()].sort((a, b) => (a.name < b.name ? -1 : 1)),
      );
    let held = EnvironmentSnapshot.from(texts(1)).snapshot;
    for (let revision = 2; revision < 60; revision++) {
      const changed = new Map<string, string | null>();
      for (let i = random(4); i >= 0; i--) {
        const name = names[random(names.length)]!;
        if (random(3) === 0) {
          current.delete(name);
          changed.set(name, null);
        } else {
          const flag = flagOf(name, revision);
          current.set(name, flag);
          changed.set(name, JSON.stringify(flag));
        }
      }
      current = new Map([...current].sort(([a], [b]) => (a < b ? -1 : 1)));
      const whole = EnvironmentSnapshot.from(texts(revision), held);
      const next = nextSnapshot(held, { revision, features: changed, segments: held.segments });
      expect([...next.snapshot.featureJson]).toEqual([...whole.snapshot.featureJson]);
      expect([...next.snapshot.compiled.features.keys()]).toEqual([...whole.snapshot.compiled.features.keys()]);
      const sortEvents = (events: typeof next.changes) => events.map((event) => JSON.stringify(event)).sort();
      expect(sortEvents(next.changes)).toEqual(sortEvents(whole.changes));
      for (const name of names) {
        const context = { userId: `u${revision}` };
        expect(evaluate(next.snapshot.compiled, name, context, options)).toEqual(evaluate(whole.snapshot.compiled, name, context, options));
      }
      held = next.snapshot;
    }
  });
});
