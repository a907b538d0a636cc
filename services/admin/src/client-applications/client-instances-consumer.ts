import { subscribeTopic, type Bus, type Subscription } from "@vexil/bus";
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
  return subscribeTopic(
    bus,
    topics.clientInstancesSeen,
    async ({ instances }) => {
      try {
        await applications.recordSeen(instances);
      } catch (err) {
        logger.error({ err, instances: instances.length }, "recording client instances failed");
      }
    },
    (issues) => logger.warn({ issues }, "ignoring a malformed client-instances notice"),
  );
}
