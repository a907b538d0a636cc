import type { Router } from "express";
import { z } from "zod";
import type { Bus, Subscription } from "@vexil/bus";
import type { Logger } from "@vexil/logger";
import { startRetention, type Retention } from "@vexil/runtime";
import type { StoreEngine } from "@vexil/store";
import type { AccessService } from "../access/access-service.js";
import { serveUsageReports } from "./usage-bus.js";
import { usageRoutes } from "./usage-routes.js";
import { UsageService } from "./usage-service.js";
import { createUsageStore } from "./usage-store.js";

export const usageMetricsEnv = z.object({
  /** Hours of usage counts kept (Unleash keeps 48, the most `/raw` serves). */
  CLIENT_METRICS_RETENTION_HOURS: z.coerce.number().int().min(1).default(48),
});
export type UsageMetricsSettings = z.infer<typeof usageMetricsEnv>;

/** Usage counts from SDK metrics: stored from frontend-eval's reports, served on Unleash's paths, pruned by age. */
export async function createUsageMetricsSlice({
  engine,
  bus,
  clock,
  logger,
  retentionHours = 48,
}: {
  engine: StoreEngine;
  bus: Bus;
  clock: () => Date;
  logger: Logger;
  retentionHours?: number;
}) {
  const store = await createUsageStore(engine);
  const usage = new UsageService({ usage: store, clock });
  let reports: Subscription | undefined;
  let retention: Retention | undefined;
  return {
    usage,
    router: (access: AccessService): Router => usageRoutes({ usage, access }),
    start() {
      reports = serveUsageReports(bus, usage);
      retention = startRetention({
        what: "usage counts",
        days: retentionHours / 24,
        prune: (before) => store.prune(before),
        clock,
        logger,
      });
    },
    stop() {
      reports?.unsubscribe();
      retention?.stop();
    },
  };
}
