import { z } from "zod";
import { dateTimeSchema } from "../common.js";
import { lifecycleStageSchema } from "./feature.js";

/** One stage a flag has entered; `status` is set on `completed` (kept or discarded). */
export const lifecycleStageEntrySchema = z.object({
  stage: lifecycleStageSchema,
  enteredStageAt: dateTimeSchema,
  status: z.enum(["kept", "discarded"]).optional(),
  statusValue: z.string().optional(),
});
export type LifecycleStageEntry = z.infer<typeof lifecycleStageEntrySchema>;

export const featureLifecycleSchema = z.array(lifecycleStageEntrySchema);

export const completeLifecycleBodySchema = z.object({
  status: z.enum(["kept", "discarded"]),
  /** The variant kept, when `status` is `kept`. */
  statusValue: z.string().optional(),
});
export type CompleteLifecycleBody = z.infer<typeof completeLifecycleBodySchema>;

/**
 * A parent dependency as written. `enabled` defaults to true; `variants` only count when the
 * parent must be enabled and are dropped otherwise, as Unleash does.
 */
export const addDependencyBodySchema = z.object({
  feature: z.string().min(1),
  enabled: z.boolean().default(true),
  variants: z.array(z.string().min(1)).default([]),
});
export type AddDependencyBody = z.infer<typeof addDependencyBodySchema>;

/** Whether some live flag of a project has a parent. */
export const dependenciesInUseSchema = z.boolean();
