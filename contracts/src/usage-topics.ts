import { z } from "zod";
import type { RequestTopic } from "./addon-topics.js";

/** One flag's evaluations by one application in one environment and hour. */
export const usageCountSchema = z.object({
  feature: z.string().min(1),
  appName: z.string().min(1),
  /** Start of the hour (UTC) the SDK's bucket began in. */
  hour: z.string().datetime(),
  yes: z.number().int().nonnegative(),
  no: z.number().int().nonnegative(),
  variants: z.record(z.string(), z.number().int().nonnegative()),
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

export const usageTopics = {
  /** admin answers (one replica of the `admin` queue group) once the counts are stored. */
  report: {
    subject: "metrics.usage",
    request: usageReportSchema,
    reply: z.object({ stored: z.boolean() }),
  } satisfies RequestTopic<UsageReport, { stored: boolean }>,
} as const;
