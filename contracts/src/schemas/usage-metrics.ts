import { z } from "zod";
import { dateTimeSchema } from "../common.js";

/** One environment's (or, in `/raw`, one application's) evaluations in an hour, as Unleash reports them. */
export const featureEnvironmentMetricsSchema = z.object({
  featureName: z.string().optional(),
  appName: z.string().optional(),
  environment: z.string(),
  timestamp: dateTimeSchema,
  yes: z.number().int(),
  no: z.number().int(),
  variants: z.record(z.string(), z.number().int()).optional(),
});
export type FeatureEnvironmentMetrics = z.infer<typeof featureEnvironmentMetricsSchema>;

export const featureUsageSchema = z.object({
  version: z.literal(1),
  maturity: z.string(),
  featureName: z.string(),
  lastHourUsage: z.array(featureEnvironmentMetricsSchema),
  seenApplications: z.array(z.string()),
});

export const featureMetricsSchema = z.object({
  version: z.literal(1),
  maturity: z.string(),
  data: z.array(featureEnvironmentMetricsSchema),
});

export const featureMetricsQuerySchema = z.object({
  hoursBack: z.coerce.number().int().min(1).max(48).optional().describe("Hours to include, 1 to 48 (default 24)"),
});
