import { z } from "zod";

export const actionRetentionEnv = z.object({
  /** Days a finished run of an action set (what `/api/admin/projects/:p/actions/:id/events` lists) is kept; 0 keeps every run. */
  ACTION_SET_EVENTS_RETENTION_DAYS: z.coerce.number().int().min(0).default(30),
});
export type ActionRetentionSettings = z.infer<typeof actionRetentionEnv>;
