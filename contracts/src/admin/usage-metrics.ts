import { z } from "zod";
import { c, dateTimeSchema, errorResponses, routerOptions } from "../common.js";

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

/** Usage counts reported by SDKs (`/api/client/metrics`, `/api/frontend/client/metrics`), on Unleash's paths. */
export const usageMetricsContract = c.router(
  {
    summary: {
      method: "GET",
      path: "/client-metrics/features/:name",
      summary: "Last hour of usage and the applications that reported the flag",
      description:
        "Evaluations reported by SDKs during the last hour, summed per environment: `yes` (enabled), `no` (disabled), " +
        "and in `/raw` per variant; `seenApplications` lists every application that reported the flag within the retention.",
      responses: { 200: featureUsageSchema, ...errorResponses(401, 403) },
    },
    raw: {
      method: "GET",
      path: "/client-metrics/features/:name/raw",
      summary: "Usage per hour, environment and application",
      description:
        "The stored counts for the last `hoursBack` hours (default 24, at most 48): one entry per hour, environment and " +
        "application, with `yes`, `no` and each variant's count, oldest hour first.",
      query: featureMetricsQuerySchema,
      responses: { 200: featureMetricsSchema, ...errorResponses(400, 401, 403) },
    },
  },
  routerOptions,
);
