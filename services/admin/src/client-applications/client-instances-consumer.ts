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
  return bus.subscribe(topics.clientInstancesSeen.subject, async (payload) => {
    const notice = topics.clientInstancesSeen.schema.safeParse(payload);
    if (!notice.success) {
      logger.warn({ issues: notice.error.issues }, "ignoring a malformed client-instances notice");
      return;
    }
    try {
      await applications.recordSeen(notice.data.instances);
    } catch (err) {
      logger.error({ err, instances: notice.data.instances.length }, "recording client instances failed");
    }
  });
}
