import { z } from "zod";

export const eventRetentionEnv = z.object({
  /** Days the event log keeps an event; 0 keeps every event for good. */
  EVENT_LOG_RETENTION_DAYS: z.coerce.number().int().min(0).default(365),
});
export type EventRetentionSettings = z.infer<typeof eventRetentionEnv>;
