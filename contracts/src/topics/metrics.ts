import { z } from "zod";
import { dateTimeSchema } from "../common.js";
import { notice, request } from "./topic.js";

/**
 * Features the SDKs reported using (client and frontend metrics), batched by frontend-eval; the
 * admin records them as the feature environment's `lastSeenAt`.
 */
export const featuresSeenSchema = z.object({
  environment: z.string().min(1),
  features: z.array(z.string().min(1)).min(1),
  seenAt: dateTimeSchema,
});
export type FeaturesSeen = z.infer<typeof featuresSeenSchema>;

/**
 * SDK instances that announced themselves (`/client/register`) or sent metrics, batched by
 * frontend-eval (one entry per appName and instanceId); the admin records them as client
 * applications and instances. Registration fields are absent when only metrics were seen.
 */
export const clientInstanceSeenSchema = z.object({
  appName: z.string().min(1),
  instanceId: z.string().min(1),
  sdkType: z.enum(["backend", "frontend"]),
  environment: z.string().min(1),
  /** The token's projects (`*` for all). */
  projects: z.array(z.string().min(1)),
  sdkVersion: z.string().optional(),
  strategies: z.array(z.string()).optional(),
  started: dateTimeSchema.optional(),
  interval: z.number().optional(),
  /** The proxies or Edge instances the registration came through. */
  connectVia: z.array(z.object({ appName: z.string(), instanceId: z.string() })).optional(),
  clientIp: z.string().optional(),
  /** Flags the instance's metrics reported using. */
  seenToggles: z.array(z.string().min(1)).optional(),
  lastSeen: dateTimeSchema,
});
export type ClientInstanceSeen = z.infer<typeof clientInstanceSeenSchema>;
export const clientInstancesSeenSchema = z.object({ instances: z.array(clientInstanceSeenSchema).min(1) });
export type ClientInstancesSeen = z.infer<typeof clientInstancesSeenSchema>;

/** One flag's evaluations by one application in one environment and hour. */
export const usageCountSchema = z.object({
  feature: z.string().min(1),
  appName: z.string().min(1),
  /** Start of the hour (UTC) the SDK's bucket began in. */
  hour: z.string().datetime(),
  yes: z.number().int().nonnegative(),
  no: z.number().int().nonnegative(),
  variants: z.record(z.string().min(1), z.number().int().nonnegative()),
});
export type UsageCount = z.infer<typeof usageCountSchema>;

/**
 * Usage counts frontend-eval gathered from SDK metrics since its last report, for admin to add.
 * `batchId` makes a report that is sent again (the reply was lost) count once.
 */
export const usageReportSchema = z.object({
  batchId: z.string().min(1),
  environment: z.string().min(1),
  counts: z.array(usageCountSchema).min(1),
});
export type UsageReport = z.infer<typeof usageReportSchema>;

export const metricsTopics = {
  /** frontend-eval publishes; admin records the feature environments' `lastSeenAt`. */
  featuresSeen: notice("metrics.features-seen", featuresSeenSchema),
  /** frontend-eval publishes; admin records the client applications and instances. */
  clientInstancesSeen: notice("metrics.client-instances-seen", clientInstancesSeenSchema),
  /** admin answers (one replica of the `admin` queue group) once the counts are stored. */
  usageReport: request("metrics.usage", usageReportSchema, z.object({ stored: z.boolean() })),
} as const;
