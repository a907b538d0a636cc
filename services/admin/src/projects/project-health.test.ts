import { describe, expect, it } from "vitest";
import type { EventDocument } from "../events/event-store.js";
import type { FeatureDocument } from "../features/feature-model.js";
import { healthOf, isPotentiallyStale, statisticsOf } from "./project-health.js";

const now = new Date("2024-06-01T00:00:00Z");
const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000);
const flag = (name: string, type: string, ageDays: number, extra: Partial<FeatureDocument> = {}) =>
  ({ _id: name, type, stale: false, archived: false, createdAt: daysAgo(ageDays), ...extra }) as FeatureDocument;
const event = (type: string, ageDays: number, extra: Partial<EventDocument> = {}) =>
  ({ type, createdAt: daysAgo(ageDays), featureName: null, environment: null, ...extra }) as EventDocument;

describe("isPotentiallyStale", () => {
  it.each([
    ["release", 41, true],
    ["release", 39, false],
    ["experiment", 41, true],
    ["operational", 8, true],
    ["operational", 6, false],
    ["sunset", 91, true],
    ["kill-switch", 5000, false],
    ["permission", 5000, false],
  ])("%s flag %i days old: %s", (type, age, expected) => {
    expect(isPotentiallyStale(flag("f", type, age), now)).toBe(expected);
  });

  it("is false once the flag is marked stale", () => {
    expect(isPotentiallyStale(flag("f", "release", 100, { stale: true }), now)).toBe(false);
  });
});

describe("healthOf", () => {
  it("is 100 for a project without flags", () => {
    expect(healthOf([], now)).toEqual({ activeCount: 0, staleCount: 0, potentiallyStaleCount: 0, health: 100 });
  });

  it("counts stale and potentially stale live flags, ignoring archived ones", () => {
    const counts = healthOf(
      [
        flag("fresh", "release", 1),
        flag("old", "release", 50),
        flag("stale", "release", 1, { stale: true }),
        flag("switch", "kill-switch", 500),
        flag("gone", "release", 500, { archived: true }),
      ],
      now,
    );
    expect(counts).toEqual({ activeCount: 3, staleCount: 1, potentiallyStaleCount: 1, health: 50 });
  });
});

describe("statisticsOf", () => {
  it("counts windows of 30 days and averages time to production", () => {
    const features = [flag("a", "release", 10), flag("b", "release", 40)];
    const events = [
      event("feature-created", 10, { featureName: "a" }),
      event("feature-created", 40, { featureName: "b" }),
      event("feature-archived", 5),
      event("feature-environment-enabled", 8, { featureName: "a", environment: "production" }),
      event("feature-environment-enabled", 6, { featureName: "a", environment: "production" }),
      event("feature-environment-enabled", 9, { featureName: "a", environment: "development" }),
      event("feature-environment-enabled", 36, { featureName: "b", environment: "production" }),
      event("feature-environment-enabled", 20, { featureName: "b", environment: "production" }),
    ];
    const stats = statisticsOf(events, features, new Set(["production"]), now);
    expect(stats).toEqual({
      // a: 2 days (first production enable); b: first enabled 36 days ago, outside the window.
      avgTimeToProdCurrentWindow: 2,
      createdCurrentWindow: 1,
      createdPastWindow: 1,
      archivedCurrentWindow: 1,
      archivedPastWindow: 0,
      projectActivityCurrentWindow: 6,
      projectActivityPastWindow: 2,
      projectMembersAddedCurrentWindow: 0,
    });
  });
});
