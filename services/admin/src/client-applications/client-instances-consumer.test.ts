import { describe, expect, it, vi } from "vitest";
import { createMemoryBus } from "@vexil/bus";
import { topics, type ClientInstanceSeen } from "@vexil/contracts";
import { createLogger } from "@vexil/logger";
import { z } from "zod";
import { consumeClientInstances } from "./client-instances-consumer.js";

const logger = createLogger({ service: "test", level: "silent" });
const instance: ClientInstanceSeen = {
  appName: "shop",
  instanceId: "i1",
  sdkType: "backend",
  environment: "development",
  projects: ["default"],
  lastSeen: "2030-01-01T00:00:00.000Z",
};

describe("consumeClientInstances", () => {
  it("hands each valid batch to the applications and skips malformed ones", async () => {
    const bus = createMemoryBus();
    const recordSeen = vi.fn(async () => {
      if (recordSeen.mock.calls.length === 1) throw new Error("store down");
    });
    const subscription = consumeClientInstances({ bus, applications: { recordSeen }, logger });
    // A publisher that does not follow the contract.
    const unchecked = { ...topics.clientInstancesSeen, schema: z.unknown() };
    bus.publish(unchecked, { instances: [] });
    bus.publish(unchecked, { instances: [{ ...instance, appName: "" }] });
    bus.publish(topics.clientInstancesSeen, { instances: [instance] });
    bus.publish(topics.clientInstancesSeen, { instances: [{ ...instance, instanceId: "i2" }] });
    await vi.waitFor(() => expect(recordSeen).toHaveBeenCalledTimes(2));
    expect(recordSeen).toHaveBeenLastCalledWith([{ ...instance, instanceId: "i2" }]);
    subscription.unsubscribe();
    await bus.close();
  });
});
