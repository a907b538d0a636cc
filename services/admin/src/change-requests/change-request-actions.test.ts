import type { ChangeRequestChange } from "@vexil/contracts";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { handlerOf, validateProposal } from "./change-request-actions.js";
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
