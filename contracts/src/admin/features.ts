import { z } from "zod";
import { c, errorResponses, resourceName, routerOptions } from "../common.js";
import {
  cloneFeatureBodySchema,
  enableFeatureQuerySchema,
  featureEnvironmentSchema,
  featureSchema,
  featureStrategySchema,
  featureVariantsResponseSchema,
  jsonPatchSchema,
  setEnvironmentVariantsBodySchema,
  checkedStrategyFieldsSchema,
} from "../schemas/index.js";

/** Unleash's flag types (the spec lists examples; Unleash 8 also has `sunset`). */
export const featureTypeSchema = z.enum(["release", "experiment", "operational", "kill-switch", "permission", "sunset"]);

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

/** `query` matches name or description; `project`, `type`, `state` take Unleash's `IS:value` or a plain value. */
export const featureSearchQuerySchema = z.object({
  query: z.string().optional(),
  project: z.string().optional(),
  type: z.string().optional(),
  state: z.string().optional(),
  offset: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

export const savedStrategySchema = featureStrategySchema.extend({ id: z.string().uuid() });
export const strategySortOrderBodySchema = z.array(z.object({ id: z.string(), sortOrder: z.number().int("Must be a whole number") }));
export const variantsBatchBodySchema = z.object({
  variants: setEnvironmentVariantsBodySchema,
  environments: z.array(z.string().min(1)).min(1),
});
export const validateFeatureNameBodySchema = z.object({ name: z.string(), projectId: z.string().optional() });

const feature = "/projects/:projectId/features/:featureName";
const strategies = `${feature}/environments/:environment/strategies`;

export const featuresContract = c.router(
  {
    listInProject: {
      method: "GET",
      path: "/projects/:projectId/features",
      summary: "List the live flags of a project",
      responses: { 200: featureListSchema, ...errorResponses(401, 403, 404) },
    },
    create: {
      method: "POST",
      path: "/projects/:projectId/features",
      summary: "Create a feature flag",
      body: createFeatureBodySchema,
      responses: { 201: featureSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
    },
    get: {
      method: "GET",
      path: feature,
      summary: "Get a feature flag",
      responses: { 200: featureSchema, ...errorResponses(401, 403, 404) },
    },
    update: {
      method: "PUT",
      path: feature,
      summary: "Update a feature flag's metadata",
      body: updateFeatureBodySchema,
      responses: { 200: featureSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    patch: {
      method: "PATCH",
      path: feature,
      summary: "Apply a JSON patch to a feature",
      body: jsonPatchSchema,
      responses: { 200: featureSchema, ...errorResponses(400, 401, 403, 404, 415) },
    },
    archive: {
      method: "DELETE",
      path: feature,
      summary: "Archive a feature flag",
      body: c.noBody(),
      responses: { 202: c.noBody(), ...errorResponses(401, 403, 404) },
    },
    getEnvironment: {
      method: "GET",
      path: `${feature}/environments/:environment`,
      summary: "A feature flag in one environment",
      responses: { 200: featureEnvironmentSchema, ...errorResponses(401, 403, 404) },
    },
    enableInEnvironment: {
      method: "POST",
      path: `${feature}/environments/:environment/on`,
      summary: "Enable a feature in an environment",
      body: c.noBody(),
      query: enableFeatureQuerySchema,
      responses: { 200: featureSchema, ...errorResponses(400, 401, 403, 404) },
    },
    disableInEnvironment: {
      method: "POST",
      path: `${feature}/environments/:environment/off`,
      summary: "Disable a feature in an environment",
      body: c.noBody(),
      responses: { 200: featureSchema, ...errorResponses(400, 401, 403, 404) },
    },
    listStrategies: {
      method: "GET",
      path: strategies,
      summary: "The strategies of a flag in an environment",
      responses: { 200: z.array(savedStrategySchema), ...errorResponses(401, 403, 404) },
    },
    addStrategy: {
      method: "POST",
      path: strategies,
      summary: "Add a strategy to a flag in an environment",
      body: checkedStrategyFieldsSchema,
      responses: { 200: savedStrategySchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    setStrategySortOrder: {
      method: "POST",
      path: `${strategies}/set-sort-order`,
      summary: "Reorder the strategies of a flag in an environment",
      body: strategySortOrderBodySchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    getStrategy: {
      method: "GET",
      path: `${strategies}/:strategyId`,
      summary: "One strategy",
      responses: { 200: savedStrategySchema, ...errorResponses(401, 403, 404) },
    },
    updateStrategy: {
      method: "PUT",
      path: `${strategies}/:strategyId`,
      summary: "Replace a strategy",
      body: checkedStrategyFieldsSchema,
      responses: { 200: savedStrategySchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    patchStrategy: {
      method: "PATCH",
      path: `${strategies}/:strategyId`,
      summary: "Apply a JSON patch to a strategy",
      body: jsonPatchSchema,
      responses: { 200: savedStrategySchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    deleteStrategy: {
      method: "DELETE",
      path: `${strategies}/:strategyId`,
      summary: "Remove a strategy",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(401, 403, 404) },
    },
    getEnvironmentVariants: {
      method: "GET",
      path: `${feature}/environments/:environment/variants`,
      summary: "The variants of a flag in an environment",
      responses: { 200: featureVariantsResponseSchema, ...errorResponses(401, 403, 404) },
    },
    setEnvironmentVariants: {
      method: "PUT",
      path: `${feature}/environments/:environment/variants`,
      summary: "Replace the variants of a feature in an environment",
      body: setEnvironmentVariantsBodySchema,
      responses: { 200: featureVariantsResponseSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    patchEnvironmentVariants: {
      method: "PATCH",
      path: `${feature}/environments/:environment/variants`,
      summary: "Apply a JSON patch to the variants of a flag in an environment",
      body: jsonPatchSchema,
      responses: { 200: featureVariantsResponseSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    setVariantsBatch: {
      method: "PUT",
      path: `${feature}/variants-batch`,
      summary: "Replace the variants of a flag in several environments",
      body: variantsBatchBodySchema,
      responses: { 200: featureVariantsResponseSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    postVariantsBatch: {
      method: "POST",
      path: `${feature}/variants-batch`,
      summary: "Replace the variants of a flag in several environments",
      body: variantsBatchBodySchema,
      responses: { 200: featureVariantsResponseSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    // Unleash documents 200 for clone but its handler answers 201, which is what clients observe.
    clone: {
      method: "POST",
      path: `${feature}/clone`,
      summary: "Copy a feature under a new name",
      body: cloneFeatureBodySchema,
      responses: { 201: featureSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
    },
    addFavorite: {
      method: "POST",
      path: `${feature}/favorites`,
      summary: "Mark a flag as a favorite of the caller",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(401, 403, 404) },
    },
    removeFavorite: {
      method: "DELETE",
      path: `${feature}/favorites`,
      summary: "Unmark a favorite flag",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(401, 403, 404) },
    },
    staleOn: {
      method: "POST",
      path: "/features/:featureName/stale/on",
      summary: "Mark a flag stale",
      body: c.noBody(),
      responses: { 200: featureSchema, ...errorResponses(401, 403, 404) },
    },
    staleOff: {
      method: "POST",
      path: "/features/:featureName/stale/off",
      summary: "Mark a flag not stale",
      body: c.noBody(),
      responses: { 200: featureSchema, ...errorResponses(401, 403, 404) },
    },
    listAll: {
      method: "GET",
      path: "/features",
      summary: "Every live flag",
      responses: { 200: featureListSchema, ...errorResponses(401, 403) },
    },
    search: {
      method: "GET",
      path: "/search/features",
      summary: "Search flags",
      query: featureSearchQuerySchema,
      responses: { 200: featureSearchResultSchema, ...errorResponses(400, 401, 403) },
    },
    validateName: {
      method: "POST",
      path: "/features/validate",
      summary: "Check that a flag name is valid and free",
      body: validateFeatureNameBodySchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 409, 413, 415) },
    },
    listArchived: {
      method: "GET",
      path: "/archive/features",
      summary: "Archived flags",
      responses: { 200: featureListSchema, ...errorResponses(401, 403) },
    },
    listArchivedInProject: {
      method: "GET",
      path: "/archive/features/:projectId",
      summary: "Archived flags of a project",
      responses: { 200: featureListSchema, ...errorResponses(401, 403, 404) },
    },
    deleteArchived: {
      method: "DELETE",
      path: "/archive/:featureName",
      summary: "Delete an archived flag for good",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(401, 403, 404) },
    },
    reviveArchived: {
      method: "POST",
      path: "/archive/revive/:featureName",
      summary: "Revive an archived flag",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(401, 403, 404) },
    },
  },
  routerOptions,
);
