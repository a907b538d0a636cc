import { permissions, requires } from "../route-access.js";
import { c, errorResponses, routerOptions } from "../common.js";
import { featureMetricsQuerySchema, featureMetricsSchema, featureUsageSchema } from "../schemas/index.js";

/** Usage counts reported by SDKs (`/api/client/metrics`, `/api/frontend/client/metrics`), on Unleash's paths. */
export const usageMetricsContract = c.router(
  {
    summary: {
      method: "GET",
      path: "/client-metrics/features/:name",
      metadata: requires(permissions.read),
      summary: "Last hour of usage and the applications that reported the flag",
      description:
        "Evaluations reported by SDKs during the last hour, summed per environment: `yes` (enabled), `no` (disabled), " +
        "and in `/raw` per variant; `seenApplications` lists every application that reported the flag within the retention.",
      responses: { 200: featureUsageSchema, ...errorResponses(401, 403) },
    },
    raw: {
      method: "GET",
      path: "/client-metrics/features/:name/raw",
      metadata: requires(permissions.read),
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
