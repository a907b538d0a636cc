import { z } from "zod";
import { dateTimeSchema, resourceName } from "../common.js";
import { featureTypeSchema } from "./feature-type.js";
import { flagLinkSchema } from "./flag-link.js";
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
  /** URLs on the flag, oldest first (see the flag links routes). */
  links: z.array(flagLinkSchema).optional(),
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

export const createFeatureBodySchema = z.object({
  name: resourceName(z.string().min(1).max(100)),
  type: featureTypeSchema.optional(),
  description: z.string().max(5000).nullable().optional(),
  impressionData: z.boolean().optional(),
});
export type CreateFeatureBody = z.infer<typeof createFeatureBodySchema>;

export const updateFeatureBodySchema = z.object({
  description: z.string().max(5000).nullable().optional(),
  type: featureTypeSchema.optional(),
  stale: z.boolean().optional(),
  archived: z.boolean().optional(),
  impressionData: z.boolean().optional(),
});
export type UpdateFeatureBody = z.infer<typeof updateFeatureBodySchema>;

export const featureListSchema = z.object({ version: z.literal(1), features: z.array(featureSchema) });

export const featureSearchResultSchema = z.object({ features: z.array(featureSchema), total: z.number().int() });

/** Unleash's tag filter: an optional operator, then comma-separated `type:value` tags. */
const tagFilterOperators = ["INCLUDE", "INCLUDE_ANY_OF", "INCLUDE_ALL_OF", "DO_NOT_INCLUDE", "EXCLUDE_IF_ANY_OF", "EXCLUDE_ALL"];
export const tagFilterPattern = new RegExp(`^(?:(?:${tagFilterOperators.join("|")}):)?[^:,]+:[^,]+(?:,[^:,]+:[^,]+)*$`);

/** `query` matches name or description; `project`, `type`, `state` take Unleash's `IS:value` or a plain value. */
export const featureSearchQuerySchema = z.object({
  query: z.string().optional(),
  project: z.string().optional(),
  type: z.string().optional(),
  state: z.string().optional(),
  tag: z
    .string()
    .regex(
      tagFilterPattern,
      "Expected type:value tags separated by commas, optionally after INCLUDE, INCLUDE_ALL_OF, DO_NOT_INCLUDE, EXCLUDE_ALL, ...",
    )
    .optional(),
  offset: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

export const variantsBatchBodySchema = z.object({
  variants: setEnvironmentVariantsBodySchema,
  environments: z.array(z.string().min(1)).min(1),
});
export const validateFeatureNameBodySchema = z.object({ name: z.string(), projectId: z.string().optional() });
