import type { Bus, Subscription } from "@vexil/bus";
import { topics } from "@vexil/contracts";
import type { Logger } from "@vexil/logger";

/**
 * Records what frontend-eval reports from SDK metrics: the environment's `lastSeenAt` on each
 * flag, then the lifecycle move that usage implies (pre-live, or live in production).
 */
export function consumeSeenFeatures({
  bus,
  features,
  lifecycle,
  logger,
}: {
  bus: Bus;
  features: { recordSeen(environment: string, names: readonly string[], at: Date): Promise<void> };
  lifecycle: { featureSeen(name: string, environment: string): Promise<void> };
  logger: Logger;
}): Subscription {
  return bus.subscribe(topics.featuresSeen, async ({ environment, features: names, seenAt }) => {
    try {
      await features.recordSeen(environment, names, new Date(seenAt));
      for (const name of names) await lifecycle.featureSeen(name, environment);
    } catch (err) {
      logger.error({ err, environment }, "recording seen features failed");
    }
  });
}
