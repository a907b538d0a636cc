import { describe, expect, it, vi } from "vitest";
import { createMemoryBus } from "@vexil/bus";
import { topics } from "@vexil/contracts";
import { createLogger } from "@vexil/logger";
import { z } from "zod";
import { consumeSeenFeatures } from "./seen-features-consumer.js";

const logger = createLogger({ service: "test", level: "silent" });

describe("consumeSeenFeatures", () => {
  it("records lastSeenAt and lifecycle for each reported flag", async () => {
    const bus = createMemoryBus();
    const recordSeen = vi.fn(async () => {});
    const featureSeen = vi.fn(async () => {});
    const subscription = consumeSeenFeatures({ bus, features: { recordSeen }, lifecycle: { featureSeen }, logger });
    const seenAt = "2024-05-01T10:00:00.000Z";
    bus.publish(topics.featuresSeen, { environment: "production", features: ["a", "b"], seenAt });
    await vi.waitFor(() => expect(featureSeen).toHaveBeenCalledTimes(2));
    expect(recordSeen).toHaveBeenCalledWith("production", ["a", "b"], new Date(seenAt));
    expect(featureSeen).toHaveBeenCalledWith("b", "production");
    subscription.unsubscribe();
  });

  it("ignores malformed notices and survives a failing write", async () => {
    const bus = createMemoryBus();
    const recordSeen = vi.fn(async () => {
      throw new Error("store down");
    });
    const featureSeen = vi.fn(async () => {});
    consumeSeenFeatures({ bus, features: { recordSeen }, lifecycle: { featureSeen }, logger });
    // A publisher that does not follow the contract.
    bus.publish({ ...topics.featuresSeen, schema: z.unknown() }, { environment: "", features: [] });
    bus.publish(topics.featuresSeen, { environment: "development", features: ["x"], seenAt: new Date().toISOString() });
    await vi.waitFor(() => expect(recordSeen).toHaveBeenCalledTimes(1));
    expect(featureSeen).not.toHaveBeenCalled();
  });
});
