import type { Bus, Subscription } from "@vexil/bus";
import { topics, type ClientInstanceSeen } from "@vexil/contracts";
import type { Logger } from "@vexil/logger";

/** Records the SDK registrations and metrics posts frontend-eval reports, one batch at a time. */
export function consumeClientInstances({
  bus,
  applications,
  logger,
}: {
  bus: Bus;
  applications: { recordSeen(instances: readonly ClientInstanceSeen[]): Promise<void> };
  logger: Logger;
}): Subscription {
  return bus.subscribe(topics.clientInstancesSeen, async ({ instances }) => {
    try {
      await applications.recordSeen(instances);
    } catch (err) {
      logger.error({ err, instances: instances.length }, "recording client instances failed");
    }
  });
}
