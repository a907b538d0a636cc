import { describe, expect, it } from "vitest";
import { clientContract } from "./client.js";
import {
  clientMetricsSchema,
  clientRegistrationSchema,
  deltaEventSchema,
  frontendContextBodySchema,
  snapshotIndexSchema,
  snapshotNamesSchema,
} from "./schemas/index.js";
import { featuresSeenSchema, topics } from "./topics/index.js";

describe("client contract", () => {
  it("serves the SDK paths under /api/client", () => {
    expect(clientContract.getFeatures.path).toBe("/api/client/features");
    expect(clientContract.streaming.path).toBe("/api/client/streaming");
    expect(clientContract.register.responses[202]).toBeDefined();
  });

  it("requires an appName on registration and metrics, and keeps unknown fields", () => {
    expect(clientRegistrationSchema.safeParse({ instanceId: "i" }).success).toBe(false);
    expect(clientRegistrationSchema.parse({ appName: "a", extra: 1 })).toEqual({ appName: "a", extra: 1 });
    expect(clientMetricsSchema.safeParse({ appName: "a", bucket: { start: 1, stop: 2, toggles: { f: { yes: -1 } } } }).success).toBe(false);
  });

  it("refuses a variant without a name in metrics, which could not be counted under one", () => {
    const report = (variants: Record<string, number>) => ({
      appName: "a",
      bucket: { start: 1, stop: 2, toggles: { f: { yes: 1, variants } } },
    });
    expect(clientMetricsSchema.safeParse(report({ blue: 1, "a.b": 2, $x: 3 })).success).toBe(true);
    const refused = clientMetricsSchema.safeParse(report({ blue: 1, "": 2 }));
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]).toMatchObject({
      path: ["bucket", "toggles", "f", "variants", ""],
      message: "A variant name cannot be empty",
    });
  });

  it("tells delta events apart by type and refuses unknown ones", () => {
    expect(deltaEventSchema.parse({ eventId: 3, type: "segment-removed", segmentId: 2 })).toEqual({
      eventId: 3,
      type: "segment-removed",
      segmentId: 2,
    });
    expect(deltaEventSchema.safeParse({ eventId: 3, type: "feature-exploded" }).success).toBe(false);
  });

  it("reads snapshot indexes and names each snapshot entry", () => {
    const index = { environment: "development", revision: 4, namesRevision: 3 };
    expect(snapshotIndexSchema.parse(index)).toEqual(index);
    expect(snapshotIndexSchema.safeParse({ ...index, revision: -1 }).success).toBe(false);
    expect(snapshotIndexSchema.safeParse({ ...index, namesRevision: -1 }).success).toBe(false);
    // An index as written before the names had their own entry says nothing of which names go with it.
    expect(snapshotIndexSchema.safeParse({ environment: "development", revision: 4, featureNames: ["a"] }).success).toBe(false);
    const names = { revision: 3, featureNames: ["a", "b"] };
    expect(snapshotNamesSchema.parse(names)).toEqual(names);
    expect(snapshotNamesSchema.safeParse({ ...names, featureNames: [1] }).success).toBe(false);
    expect(snapshotNamesSchema.safeParse({ featureNames: ["a"] }).success).toBe(false);
  });

  it("takes the frontend context nested or bare", () => {
    expect(frontendContextBodySchema.parse({ context: { userId: "u" } }).context?.userId).toBe("u");
    expect(frontendContextBodySchema.safeParse({ context: { userId: 5 } }).success).toBe(false);
    expect(frontendContextBodySchema.parse({ context: { properties: { gone: null, count: 5, on: true } } }).context?.properties).toEqual({
      gone: null,
      count: 5,
      on: true,
    });
    expect(frontendContextBodySchema.safeParse({ context: { properties: { nested: { a: 1 } } } }).success).toBe(false);
  });

  it("batches seen features with an ISO time", () => {
    expect(topics.featuresSeen.subject).toBe("metrics.features-seen");
    expect(featuresSeenSchema.safeParse({ environment: "development", features: [], seenAt: new Date().toISOString() }).success).toBe(
      false,
    );
  });
});
