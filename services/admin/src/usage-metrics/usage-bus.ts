import type { Bus, Subscription } from "@vexil/bus";
import { topics } from "@vexil/contracts";
import type { UsageService } from "./usage-service.js";

/** Answers frontend-eval's usage reports once stored; the `admin` queue group makes one replica count each. */
export function serveUsageReports(bus: Bus, usage: UsageService): Subscription {
  return bus.reply(
    topics.usageReport,
    async (report) => {
      await usage.record(report);
      return { stored: true };
    },
    { queue: "admin" },
  );
}
