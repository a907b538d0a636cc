import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { author, reviewer, startChangeRequestSlice } from "./change-request.fixture.js";

describe("ChangeRequestReview: moving and applying a request", () => {
  let slice: Awaited<ReturnType<typeof startChangeRequestSlice>>;
  beforeEach(async () => {
    slice = await startChangeRequestSlice();
    await slice.features.create("default", { name: "flag" }, author);
    await slice.config.putConfig("default", "production", { changeRequestsEnabled: true }, author);
  });
  afterEach(() => slice.stop());

  const propose = () =>
    slice.service.addChanges(
      "default",
      "production",
      [
        { action: "updateEnabled", feature: "flag", payload: { enabled: true } },
        { action: "addStrategy", feature: "flag", payload: { name: "userWithId", parameters: { userIds: "1" }, constraints: [] } },
      ],
      author,
    );

  it("applies an approved request's changes in order, as one unit, with the flag's own events", async () => {
    const { id } = await propose();
    await slice.review.changeState("default", id, { state: "In review" }, author);
    await expect(slice.review.changeState("default", id, { state: "Approved" }, author)).rejects.toMatchObject({
      message: "You cannot approve your own change request",
    });
    expect((await slice.review.changeState("default", id, { state: "Approved" }, reviewer)).state).toBe("Approved");
    const applied = await slice.review.changeState("default", id, { state: "Applied" }, reviewer);
    expect(applied.state).toBe("Applied");
    // The strategy was added before the environment was enabled: no default strategy was added.
    expect((await slice.features.get("flag")).environments.production).toMatchObject({
      enabled: true,
      strategies: [{ name: "userWithId" }],
    });
    expect(await slice.eventTypes("flag")).toEqual(["feature-created", "feature-strategy-add", "feature-environment-enabled"]);
  });

  it("applies nothing and records why when a change fails midway", async () => {
    await slice.config.putConfig("default", "production", { changeRequestsEnabled: false }, author);
    const existing = await slice.strategies.addStrategy("default", "flag", "production", { name: "default" }, author);
    await slice.config.putConfig("default", "production", { changeRequestsEnabled: true }, author);
    const { id } = await slice.service.addChanges(
      "default",
      "production",
      [
        { action: "addStrategy", feature: "flag", payload: { name: "default", parameters: {}, constraints: [] } },
        {
          action: "updateStrategy",
          feature: "flag",
          payload: { id: existing.id, name: "userWithId", parameters: { userIds: "1" }, constraints: [] },
        },
      ],
      author,
    );
    await slice.review.changeState("default", id, { state: "In review" }, author);
    await slice.review.changeState("default", id, { state: "Approved" }, reviewer);
    // The second change's strategy stops being defined after it was proposed: applying it fails.
    slice.definedStrategies.delete("userWithId");
    await expect(slice.review.changeState("default", id, { state: "Applied" }, reviewer)).rejects.toMatchObject({
      message: "Strategy userWithId is not defined",
    });
    expect((await slice.service.get("default", id)).state).toBe("Approved");
    expect((await slice.features.get("flag")).environments.production?.strategies.map((s) => s.id)).toEqual([existing.id]);
    expect((await slice.store.get(id))?.failureReason).toBe("Strategy userWithId is not defined");
  });

  it("tells the scheduler when a request is scheduled, until it unsubscribes", async () => {
    const { id } = await propose();
    await slice.review.changeState("default", id, { state: "In review" }, author);
    await slice.review.changeState("default", id, { state: "Approved" }, reviewer);
    let pokes = 0;
    const unsubscribe = slice.review.onScheduled(() => pokes++);
    const at = new Date(slice.clock().getTime() + 60_000).toISOString();
    await slice.review.changeState("default", id, { state: "Scheduled", scheduledAt: at }, reviewer);
    unsubscribe();
    await slice.review.changeState("default", id, { state: "Scheduled", scheduledAt: at }, reviewer);
    expect(pokes).toBe(1);
  });
});
