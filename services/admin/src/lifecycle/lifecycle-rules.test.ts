import { describe, expect, it } from "vitest";
import type { LifecycleEntry } from "../features/feature-model.js";
import { complete, currentStage, moveForActivity, uncomplete } from "./lifecycle-rules.js";

const t0 = new Date("2024-01-01T00:00:00Z");
const now = new Date("2024-02-01T00:00:00Z");
const initial: LifecycleEntry[] = [{ stage: "initial", enteredStageAt: t0 }];
const stages = (l: LifecycleEntry[]) => l.map((e) => e.stage);

describe("moveForActivity", () => {
  it("moves initial to pre-live in a non-production environment", () => {
    const moved = moveForActivity(initial, "development", now);
    expect(stages(moved)).toEqual(["initial", "pre-live"]);
    expect(moved[1]?.enteredStageAt).toBe(now);
  });

  it("moves initial through pre-live to live in a production environment", () => {
    expect(stages(moveForActivity(initial, "production", now))).toEqual(["initial", "pre-live", "live"]);
  });

  it("moves pre-live to live, and never backwards", () => {
    const preLive = moveForActivity(initial, "test", t0);
    expect(stages(moveForActivity(preLive, "production", now))).toEqual(["initial", "pre-live", "live"]);
    const live = moveForActivity(preLive, "production", now);
    expect(moveForActivity(live, "development", now)).toEqual(live);
  });

  it("leaves completed and archived flags where they are", () => {
    const completed = complete(initial, "kept", undefined, t0);
    expect(moveForActivity(completed, "production", now)).toEqual(completed);
    const archived: LifecycleEntry[] = [...initial, { stage: "archived", enteredStageAt: t0 }];
    expect(moveForActivity(archived, "production", now)).toEqual(archived);
  });

  it("does not change the list it is given", () => {
    const before = structuredClone(initial);
    moveForActivity(initial, "production", now);
    expect(initial).toEqual(before);
  });
});

describe("complete and uncomplete", () => {
  it("records the status and the kept variant", () => {
    const completed = complete(initial, "kept", "variant-a", now);
    expect(completed.at(-1)).toEqual({ stage: "completed", enteredStageAt: now, status: "kept", statusValue: "variant-a" });
    expect(currentStage(completed)).toBe("completed");
  });

  it("replaces an earlier completion instead of stacking them", () => {
    const twice = complete(complete(initial, "kept", undefined, t0), "discarded", undefined, now);
    expect(stages(twice)).toEqual(["initial", "completed"]);
    expect(twice.at(-1)?.status).toBe("discarded");
  });

  it("uncomplete returns to the previous stage and is a no-op otherwise", () => {
    const live = moveForActivity(initial, "production", t0);
    expect(uncomplete(complete(live, "kept", undefined, now))).toEqual(live);
    expect(uncomplete(live)).toEqual(live);
  });
});
