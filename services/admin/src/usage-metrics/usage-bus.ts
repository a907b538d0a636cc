import type { Bus, Subscription } from "@vexil/bus";
import { usageTopics } from "@vexil/contracts";
import type { UsageService } from "./usage-service.js";

/** Answers frontend-eval's usage reports once stored; the `admin` queue group makes one replica count each. */
export function serveUsageReports(bus: Bus, usage: UsageService): Subscription {
  return bus.reply(
    usageTopics.report.subject,
    async (payload) => {
      await usage.record(usageTopics.report.request.parse(payload));
      return { stored: true };
    },
    { queue: "admin" },
  );
}
