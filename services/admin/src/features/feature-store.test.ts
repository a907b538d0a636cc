import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StoreEngine } from "@vexil/store";
import { tempEngine, type TempEngine } from "@vexil/store/testing";
import type { FeatureDocument, FeatureEnvironmentDocument } from "./feature-model.js";
import { featureDocument } from "./feature-slice.fixture.js";
import { createFeatureStore, type FeatureStore } from "./feature-store.js";

const entry = (): FeatureEnvironmentDocument => ({ enabled: true, strategies: [], variants: [], lastSeenAt: null });

const flag = (name: string, environments: Record<string, FeatureEnvironmentDocument>): FeatureDocument =>
  featureDocument(name, { environments });

describe("feature store", () => {
  let temp: TempEngine;
  let engine: StoreEngine;
  let features: FeatureStore;

  beforeEach(async () => {
    temp = await tempEngine("feature-store");
    engine = temp.engine;
    features = await createFeatureStore(engine);
  });
  afterEach(async () => {
    await temp.remove();
  });

  it("records usage in environments whose names hold . or $, on that entry only", async () => {
    await engine.withTransaction((session) => features.insert(flag("a", { "prod.eu": entry(), prod: entry(), $edge: entry() }), session));
    const at = new Date("2030-01-01T00:00:00Z");
    await features.setLastSeen("prod.eu", ["a", "missing"], at);
    await features.setLastSeen("$edge", ["a"], at);
    await features.setLastSeen("nowhere", ["a"], at);
    const stored = (await features.get("a"))!;
    expect(Object.keys(stored.environments).sort()).toEqual(["$edge", "prod", "prod.eu"]);
    expect(stored.environments["prod.eu"]!.lastSeenAt).toEqual(at);
    expect(stored.environments.$edge!.lastSeenAt).toEqual(at);
    expect(stored.environments.prod!.lastSeenAt).toBeNull();
    // Usage, not a change.
    expect(stored.version).toBe(1);
  });

  it("reads the children of many parents at once, as children() reads them one by one", async () => {
    const child = (name: string, parents: string[]) => ({
      ...flag(name, {}),
      dependencies: parents.map((feature) => ({ feature, enabled: true, variants: [] })),
    });
    await engine.withTransaction(async (session) => {
      for (const doc of [flag("p1", {}), flag("p2", {}), flag("lonely", {}), child("c2", ["p1"]), child("c1", ["p1", "p2"])]) {
        await features.insert(doc, session);
      }
    });
    const byParent = await features.childrenOf(["p1", "p2", "lonely", "missing"]);
    expect(Object.fromEntries(byParent)).toEqual({ p1: ["c1", "c2"], p2: ["c1"] });
    expect((await features.children("p1")).map((doc) => doc._id)).toEqual(byParent.get("p1"));
  });
});
