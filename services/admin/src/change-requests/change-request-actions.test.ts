import type { ChangeRequestChange } from "@vexil/contracts";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FeatureDocument, FeatureStrategyDocument } from "../features/feature-model.js";
import { featureDocument, strategyDocument } from "../features/feature-slice.fixture.js";
import { baseOf, conflictOf, handlerOf, validateProposal } from "./change-request-actions.js";
import type { StoredChange } from "./change-request-model.js";
import { author, startChangeRequestSlice } from "./change-request.fixture.js";

describe("change-request actions: one row per action", () => {
  let slice: Awaited<ReturnType<typeof startChangeRequestSlice>>;
  const target = { project: "default", environment: "production" };
  const propose = (change: ChangeRequestChange) => validateProposal(slice.ports, slice.actions, target, change, "body.3");
  beforeEach(async () => {
    slice = await startChangeRequestSlice();
    await slice.features.create("default", { name: "flag" }, author);
  });
  afterEach(() => slice.stop());

  it("applies segment changes first and archiving last, so a request's changes build on each other", () => {
    const order = Object.entries(slice.actions)
      .sort(([, a], [, b]) => a.order - b.order)
      .map(([action]) => action);
    expect(order.indexOf("addStrategy")).toBeLessThan(order.indexOf("updateEnabled"));
    expect(order.at(0)).toBe("updateSegment");
    expect(order.slice(-2)).toEqual(["archiveFeature", "deleteSegment"]);
  });

  it("refuses, naming the field, a flag that does not exist, an unknown strategy and an undefined strategy name", async () => {
    await expect(propose({ action: "updateEnabled", feature: "ghost", payload: { enabled: true } })).rejects.toMatchObject({
      name: "ValidationError",
      details: [{ path: "body.3.feature" }],
    });
    await expect(propose({ action: "deleteStrategy", feature: "flag", payload: { id: "nope" } })).rejects.toMatchObject({
      details: [{ path: "body.3.payload.id", message: "strategy nope does not exist for flag in production" }],
    });
    await expect(
      propose({ action: "addStrategy", feature: "flag", payload: { name: "mystery", parameters: {}, constraints: [] } }),
    ).rejects.toMatchObject({
      details: [{ path: "body.3.payload", message: "Strategy mystery is not defined" }],
    });
    await expect(propose({ action: "deleteSegment", payload: { id: 4 } })).rejects.toMatchObject({
      details: [{ path: "body.3.payload.id" }],
    });
  });

  it("returns the flag a valid change was proposed against, and applies it through the flag model", async () => {
    const change: ChangeRequestChange = {
      action: "addStrategy",
      feature: "flag",
      payload: { name: "default", parameters: {}, constraints: [] },
    };
    const { feature, segment } = await propose(change);
    expect(feature?._id).toBe("flag");
    expect(segment).toBeNull();
    await handlerOf(slice.actions, change).apply(change, { ...target, actor: author });
    expect((await slice.features.get("flag")).environments.production?.strategies.map((s) => s.name)).toEqual(["default"]);
  });
});

const now = new Date("2026-01-01T00:00:00Z");

function change(fields: Partial<StoredChange>): StoredChange {
  return {
    id: 1,
    action: "updateEnabled",
    feature: "f",
    payload: { enabled: true },
    createdBy: { id: 1, username: "alice" },
    createdAt: now,
    base: {},
    ...fields,
  };
}

describe("conflicts: what a row records when a change is proposed, and when it no longer applies", () => {
  let slice: Awaited<ReturnType<typeof startChangeRequestSlice>>;
  beforeAll(async () => {
    slice = await startChangeRequestSlice();
  });
  afterAll(() => slice.stop());

  const strategy = strategyDocument({ id: "s1", createdAt: now });
  const flag = (strategies: FeatureStrategyDocument[], fields: Partial<FeatureDocument> = {}): FeatureDocument =>
    featureDocument("f", {
      createdAt: now,
      environments: { production: { enabled: false, strategies, variants: [], lastSeenAt: null } },
      version: 3,
      ...fields,
    });
  const context = (feature: FeatureDocument | null) => ({ project: "default", environment: "production", feature, segment: null });

  it("flags a strategy changed or deleted since the proposal, not one merely reordered", () => {
    const proposed: ChangeRequestChange = { action: "updateStrategy", feature: "f", payload: { id: "s1", name: "default" } };
    const stored = change({ ...proposed, base: baseOf(slice.actions, proposed, flag([strategy]), null, "production") });
    expect(conflictOf(slice.actions, stored, context(flag([{ ...strategy, sortOrder: 5 }])))).toBeUndefined();
    expect(conflictOf(slice.actions, stored, context(flag([{ ...strategy, parameters: { x: "1" } }])))).toMatch(/strategy was changed/);
    expect(conflictOf(slice.actions, stored, context(flag([])))).toMatch(/strategy was deleted/);
  });

  it("flags any change to a deleted or archived flag, and variants changed since", () => {
    expect(conflictOf(slice.actions, change({}), context(null))).toMatch(/was deleted/);
    expect(conflictOf(slice.actions, change({}), context(flag([], { archived: true })))).toMatch(/was archived/);
    const proposed: ChangeRequestChange = { action: "patchVariant", feature: "f", payload: { variants: [] } };
    const stored = change({ ...proposed, base: baseOf(slice.actions, proposed, flag([]), null, "production") });
    expect(conflictOf(slice.actions, stored, context(flag([])))).toBeUndefined();
    const changed = flag([]);
    changed.environments.production!.variants = [{ name: "a", weight: 1000, weightType: "variable", stickiness: "default" }];
    expect(conflictOf(slice.actions, stored, context(changed))).toMatch(/variants were changed/);
  });

  it("flags a segment changed or deleted since", () => {
    const segment = {
      _id: 4,
      name: "beta",
      description: null,
      project: null,
      constraints: [],
      createdBy: null,
      createdAt: now,
      version: 2,
    };
    const stored = change({
      action: "deleteSegment",
      feature: null,
      payload: { id: 4 },
      base: baseOf(slice.actions, { action: "deleteSegment", payload: { id: 4 } }, null, segment, "production"),
    });
    const at = (s: typeof segment | null) => ({ project: "default", environment: "production", feature: null, segment: s });
    expect(conflictOf(slice.actions, stored, at(segment))).toBeUndefined();
    expect(conflictOf(slice.actions, stored, at({ ...segment, version: 3 }))).toMatch(/was changed/);
    expect(conflictOf(slice.actions, stored, at(null))).toMatch(/was deleted/);
  });
});
