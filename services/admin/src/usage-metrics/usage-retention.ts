import { z } from "zod";

export const usageMetricsEnv = z.object({
  /** Hours of usage counts kept (Unleash keeps 48, the most `/raw` serves). */
  CLIENT_METRICS_RETENTION_HOURS: z.coerce.number().int().min(1).default(48),
});
export type UsageMetricsSettings = z.infer<typeof usageMetricsEnv>;
