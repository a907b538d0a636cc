import { z } from "zod";

export const clientInstanceRetentionEnv = z.object({
  /** Days an SDK instance not seen since is kept (Unleash removes those not seen for a day); 0 keeps every instance. */
  CLIENT_INSTANCES_RETENTION_DAYS: z.coerce.number().int().min(0).default(1),
});
export type ClientInstanceRetentionSettings = z.infer<typeof clientInstanceRetentionEnv>;
