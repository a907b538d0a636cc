import { describe, expect, it } from "vitest";
import { applyDelta } from "./delta.js";
import type { ClientFeaturesPayload } from "./types.js";

const base: ClientFeaturesPayload = {
  version: 2,
  features: [
    { name: "a", enabled: true, strategies: [] },
    { name: "b", enabled: true, strategies: [] },
  ],
  segments: [{ id: 1, constraints: [] }],
};

describe("applyDelta", () => {
  it("updates in place, appends new features, removes, and leaves the input untouched", () => {
    const snapshot = structuredClone(base);
    const next = applyDelta(base, [
      { eventId: 1, type: "feature-updated", feature: { name: "a", enabled: false, strategies: [] } },
      { eventId: 2, type: "feature-updated", feature: { name: "c", enabled: true, strategies: [] } },
      { eventId: 3, type: "feature-removed", featureName: "b", project: "default" },
      { eventId: 4, type: "segment-updated", segment: { id: 2, constraints: [] } },
      { eventId: 5, type: "segment-removed", segmentId: 1 },
    ]);
    expect(next).toEqual({
      version: 2,
      features: [
        { name: "a", enabled: false, strategies: [] },
        { name: "c", enabled: true, strategies: [] },
      ],
      segments: [{ id: 2, constraints: [] }],
    });
    expect(base).toEqual(snapshot);
  });

  it("replaces everything on hydration", () => {
    const next = applyDelta(base, [
      { eventId: 9, type: "hydration", features: [{ name: "z", enabled: true, strategies: [] }], segments: [] },
    ]);
    expect(next).toEqual({ version: 2, features: [{ name: "z", enabled: true, strategies: [] }], segments: [] });
  });
});
