import { z } from "zod";
import { dateTimeSchema } from "../common.js";
import { featureStrategySchema } from "./strategy.js";
import { tagSchema } from "./tag.js";
import { featureVariantListSchema, featureVariantSchema } from "./variant.js";

export const featureEnvironmentSchema = z.object({
  name: z.string(),
  featureName: z.string().optional(),
  environment: z.string().optional(),
  type: z.string().optional(),
  enabled: z.boolean(),
  sortOrder: z.number().optional(),
  variantCount: z.number().optional(),
  strategies: z.array(featureStrategySchema).optional(),
  variants: z.array(featureVariantSchema).optional(),
  lastSeenAt: dateTimeSchema.nullable().optional(),
  hasStrategies: z.boolean().optional(),
  hasEnabledStrategies: z.boolean().optional(),
});
export type FeatureEnvironment = z.infer<typeof featureEnvironmentSchema>;

export const lifecycleStages = ["initial", "pre-live", "live", "completed", "archived"] as const;
export const lifecycleStageSchema = z.enum(lifecycleStages);
export type LifecycleStage = z.infer<typeof lifecycleStageSchema>;

/** A user shown on a feature: creator, collaborator. `name` falls back to `unknown`. */
export const featureUserSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  imageUrl: z.string(),
});
export type FeatureUser = z.infer<typeof featureUserSchema>;

export const featureDependencySchema = z.object({
  feature: z.string(),
  enabled: z.boolean().optional(),
  variants: z.array(z.string()).optional(),
});
export type FeatureDependency = z.infer<typeof featureDependencySchema>;

export const featureSchema = z.object({
  name: z.string(),
  type: z.string().optional(),
  description: z.string().nullable().optional(),
  archived: z.boolean().optional(),
  project: z.string().optional(),
  enabled: z.boolean().optional(),
  stale: z.boolean().optional(),
  favorite: z.boolean().optional(),
  impressionData: z.boolean().optional(),
  createdAt: dateTimeSchema.nullable().optional(),
  createdBy: featureUserSchema.optional(),
  archivedAt: dateTimeSchema.nullable().optional(),
  /** @deprecated use the feature environment's lastSeenAt */
  lastSeenAt: dateTimeSchema.nullable().optional(),
  environments: z.array(featureEnvironmentSchema).optional(),
  /** @deprecated variants live on feature environments */
  variants: z.array(featureVariantSchema).optional(),
  /** @deprecated since v5 */
  strategies: z.array(z.record(z.string(), z.unknown())).optional(),
  tags: z.array(tagSchema).nullable().optional(),
  children: z.array(z.string()).optional(),
  lifecycle: z.object({ stage: lifecycleStageSchema, enteredStageAt: dateTimeSchema }).optional(),
  dependencies: z.array(featureDependencySchema).optional(),
  collaborators: z.object({ users: z.array(featureUserSchema) }).optional(),
});
export type Feature = z.infer<typeof featureSchema>;

/** POST /api/admin/projects/:projectId/features/:featureName/clone body. */
export const cloneFeatureBodySchema = z.object({
  name: z.string().min(1),
  replaceGroupId: z.boolean().default(true),
});
export type CloneFeatureBody = z.infer<typeof cloneFeatureBodySchema>;

/**
 * POST .../features/:featureName/environments/:environment/on query. Unleash reads `shouldActivateDisabledStrategies=true` and treats any other
 * value as false.
 */
export const enableFeatureQuerySchema = z.object({
  shouldActivateDisabledStrategies: z
    .string()
    .optional()
    .transform((value) => value === "true"),
});
export type EnableFeatureQuery = z.infer<typeof enableFeatureQuerySchema>;

/** PUT .../features/:featureName/environments/:environment/variants body: the full replacement list. */
export const setEnvironmentVariantsBodySchema = featureVariantListSchema;

export const featureVariantsResponseSchema = z.object({
  version: z.number().int(),
  variants: z.array(featureVariantSchema),
});
export type FeatureVariantsResponse = z.infer<typeof featureVariantsResponseSchema>;
