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
  featureTypeSchema,
} from "../schemas/index.js";

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

/** A flag type with the lifetime after which a flag of it counts as potentially stale (null: permanent). */
export const featureTypeEntrySchema = z.object({
  id: featureTypeSchema,
  name: z.string(),
  description: z.string(),
  lifetimeDays: z.number().int().nullable(),
});
export const featureTypeListSchema = z.object({ version: z.literal(1), types: z.array(featureTypeEntrySchema) });
export type FeatureTypeList = z.infer<typeof featureTypeListSchema>;
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
    listTypes: {
      method: "GET",
      path: "/feature-types",
      summary: "List the flag types",
      description: "Each flag type with its expected lifetime in days, after which its flags count as potentially stale.",
      responses: { 200: featureTypeListSchema, ...errorResponses(401) },
    },
    listInProject: {
      method: "GET",
      path: "/projects/:projectId/features",
      summary: "List the live flags of a project",
      description: "The project's flags that are not archived, each with its environments, strategies, variants and tags.",
      responses: { 200: featureListSchema, ...errorResponses(401, 403, 404) },
    },
    create: {
      method: "POST",
      path: "/projects/:projectId/features",
      summary: "Create a feature flag",
      description:
        "Creates a flag in the project, off in every environment. The name must be URL-friendly, unique across projects (archived flags included) and match the project's naming pattern; the project's flag limit applies.",
      metadata: { requestExample: { name: "new-checkout", type: "release", description: "The one-page checkout", impressionData: false } },
      body: createFeatureBodySchema,
      responses: { 201: featureSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
    },
    get: {
      method: "GET",
      path: feature,
      summary: "Get a feature flag",
      description:
        "One flag with its environments (on/off, strategies, variants), dependencies, children, lifecycle stage, collaborators and tags.",
      responses: { 200: featureSchema, ...errorResponses(401, 403, 404) },
    },
    update: {
      method: "PUT",
      path: feature,
      summary: "Update a feature flag's metadata",
      description: "Changes the flag's description, type, stale mark or impression data; `archived: true` archives it.",
      metadata: { requestExample: { description: "The one-page checkout", type: "release", stale: false, impressionData: true } },
      body: updateFeatureBodySchema,
      responses: { 200: featureSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    patch: {
      method: "PATCH",
      path: feature,
      summary: "Apply a JSON patch to a feature",
      description: "Applies an RFC 6902 JSON patch to the flag's metadata (`/description`, `/type`, `/stale`, `/impressionData`).",
      metadata: { requestExample: [{ op: "replace", path: "/description", value: "The one-page checkout" }] },
      body: jsonPatchSchema,
      responses: { 200: featureSchema, ...errorResponses(400, 401, 403, 404, 415) },
    },
    archive: {
      method: "DELETE",
      path: feature,
      summary: "Archive a feature flag",
      description:
        "Archives the flag: SDKs stop receiving it, its dependencies are removed, and it can be revived or deleted for good from the archive.",
      body: c.noBody(),
      responses: { 202: c.noBody(), ...errorResponses(401, 403, 404) },
    },
    getEnvironment: {
      method: "GET",
      path: `${feature}/environments/:environment`,
      summary: "A feature flag in one environment",
      description: "The flag in one environment: on/off, strategies and variants.",
      responses: { 200: featureEnvironmentSchema, ...errorResponses(401, 403, 404) },
    },
    enableInEnvironment: {
      method: "POST",
      path: `${feature}/environments/:environment/on`,
      summary: "Enable a feature in an environment",
      description:
        "Turns the flag on in the environment. A flag without an active strategy gets the project's default strategy (or, with `shouldActivateDisabledStrategies`, its disabled strategies are turned on).",
      body: c.noBody(),
      query: enableFeatureQuerySchema,
      responses: { 200: featureSchema, ...errorResponses(400, 401, 403, 404) },
    },
    disableInEnvironment: {
      method: "POST",
      path: `${feature}/environments/:environment/off`,
      summary: "Disable a feature in an environment",
      description: "Turns the flag off in the environment; its strategies are kept.",
      body: c.noBody(),
      responses: { 200: featureSchema, ...errorResponses(400, 401, 403, 404) },
    },
    listStrategies: {
      method: "GET",
      path: strategies,
      summary: "The strategies of a flag in an environment",
      description: "The flag's strategies in the environment, in evaluation order.",
      responses: { 200: z.array(savedStrategySchema), ...errorResponses(401, 403, 404) },
    },
    addStrategy: {
      method: "POST",
      path: strategies,
      summary: "Add a strategy to a flag in an environment",
      description:
        "Adds a strategy (built-in or a defined custom one) with its parameters, constraints, segments and strategy variants. Constraint values are checked against the operator and the context field's legal values; percentages must be whole numbers 0 to 100.",
      metadata: {
        requestExample: {
          name: "flexibleRollout",
          title: "Gold half",
          parameters: { rollout: "50", stickiness: "userId", groupId: "new-checkout" },
          constraints: [{ contextName: "tier", operator: "IN", values: ["gold"] }],
          segments: [1],
          variants: [{ name: "blue", weight: 1000, weightType: "variable", stickiness: "userId" }],
        },
      },
      body: checkedStrategyFieldsSchema,
      responses: { 200: savedStrategySchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    setStrategySortOrder: {
      method: "POST",
      path: `${strategies}/set-sort-order`,
      summary: "Reorder the strategies of a flag in an environment",
      description: "Sets the evaluation order of the flag's strategies in the environment.",
      metadata: {
        requestExample: [
          { id: "3f6c1d2e-8a47-4b8e-9a3b-2d5f7c9e1a20", sortOrder: 0 },
          { id: "9b2e4f6a-1c3d-4e5f-8a7b-6c5d4e3f2a10", sortOrder: 1 },
        ],
      },
      body: strategySortOrderBodySchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    getStrategy: {
      method: "GET",
      path: `${strategies}/:strategyId`,
      summary: "One strategy",
      description: "One strategy of the flag in the environment.",
      responses: { 200: savedStrategySchema, ...errorResponses(401, 403, 404) },
    },
    updateStrategy: {
      method: "PUT",
      path: `${strategies}/:strategyId`,
      summary: "Replace a strategy",
      description: "Replaces a strategy's fields, with the same checks as adding one.",
      metadata: {
        requestExample: {
          name: "flexibleRollout",
          parameters: { rollout: "75", stickiness: "userId", groupId: "new-checkout" },
          constraints: [],
        },
      },
      body: checkedStrategyFieldsSchema,
      responses: { 200: savedStrategySchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    patchStrategy: {
      method: "PATCH",
      path: `${strategies}/:strategyId`,
      summary: "Apply a JSON patch to a strategy",
      description: "Applies an RFC 6902 JSON patch to a strategy, then checks the result as a replacement would be.",
      metadata: { requestExample: [{ op: "replace", path: "/parameters/rollout", value: "75" }] },
      body: jsonPatchSchema,
      responses: { 200: savedStrategySchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    deleteStrategy: {
      method: "DELETE",
      path: `${strategies}/:strategyId`,
      summary: "Remove a strategy",
      description: "Removes a strategy from the flag in the environment.",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(401, 403, 404) },
    },
    getEnvironmentVariants: {
      method: "GET",
      path: `${feature}/environments/:environment/variants`,
      summary: "The variants of a flag in an environment",
      description: "The flag's variants in the environment, with weights spread to 1000.",
      responses: { 200: featureVariantsResponseSchema, ...errorResponses(401, 403, 404) },
    },
    setEnvironmentVariants: {
      method: "PUT",
      path: `${feature}/environments/:environment/variants`,
      summary: "Replace the variants of a feature in an environment",
      description:
        "Replaces the flag's variants in the environment. `fix` weights are kept, the rest of 1000 is spread over the `variable` ones in the given order; names must be unique.",
      metadata: {
        requestExample: [
          { name: "blue", weight: 500, weightType: "variable", stickiness: "userId", payload: { type: "json", value: '{"color":"blue"}' } },
          {
            name: "green",
            weight: 500,
            weightType: "variable",
            stickiness: "userId",
            overrides: [{ contextName: "userId", values: ["alice"] }],
          },
        ],
      },
      body: setEnvironmentVariantsBodySchema,
      responses: { 200: featureVariantsResponseSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    patchEnvironmentVariants: {
      method: "PATCH",
      path: `${feature}/environments/:environment/variants`,
      summary: "Apply a JSON patch to the variants of a flag in an environment",
      description: "Applies an RFC 6902 JSON patch to the variant list of the environment, then stores it as a replacement would be.",
      metadata: {
        requestExample: [{ op: "add", path: "/-", value: { name: "red", weight: 0, weightType: "variable", stickiness: "default" } }],
      },
      body: jsonPatchSchema,
      responses: { 200: featureVariantsResponseSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    setVariantsBatch: {
      method: "PUT",
      path: `${feature}/variants-batch`,
      summary: "Replace the variants of a flag in several environments",
      description: "Replaces the flag's variants in each of the listed environments with the same list.",
      metadata: {
        requestExample: {
          variants: [{ name: "blue", weight: 1000, weightType: "variable", stickiness: "default" }],
          environments: ["development", "production"],
        },
      },
      body: variantsBatchBodySchema,
      responses: { 200: featureVariantsResponseSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    postVariantsBatch: {
      method: "POST",
      path: `${feature}/variants-batch`,
      summary: "Replace the variants of a flag in several environments",
      description: "Same as the PUT: replaces the flag's variants in each of the listed environments.",
      metadata: {
        requestExample: {
          variants: [{ name: "blue", weight: 1000, weightType: "variable", stickiness: "default" }],
          environments: ["development"],
        },
      },
      body: variantsBatchBodySchema,
      responses: { 200: featureVariantsResponseSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    // Unleash documents 200 for clone but its handler answers 201, which is what clients observe.
    clone: {
      method: "POST",
      path: `${feature}/clone`,
      summary: "Copy a feature under a new name",
      description:
        "Copies the flag under a new name in the same project: metadata, strategies and variants in every environment (off everywhere). With `replaceGroupId`, rollout group ids become the new name so the copy samples users independently.",
      metadata: { requestExample: { name: "new-checkout-v2", replaceGroupId: true } },
      body: cloneFeatureBodySchema,
      responses: { 201: featureSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
    },
    addFavorite: {
      method: "POST",
      path: `${feature}/favorites`,
      summary: "Mark a flag as a favorite of the caller",
      description: "Marks the flag as a favorite of the signed-in user; favorites sort first.",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(401, 403, 404) },
    },
    removeFavorite: {
      method: "DELETE",
      path: `${feature}/favorites`,
      summary: "Unmark a favorite flag",
      description: "Removes the flag from the user's favorites.",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(401, 403, 404) },
    },
    staleOn: {
      method: "POST",
      path: "/features/:featureName/stale/on",
      summary: "Mark a flag stale",
      description: "Marks the flag stale: it still works, and shows as due for removal.",
      body: c.noBody(),
      responses: { 200: featureSchema, ...errorResponses(401, 403, 404) },
    },
    staleOff: {
      method: "POST",
      path: "/features/:featureName/stale/off",
      summary: "Mark a flag not stale",
      description: "Removes the stale mark.",
      body: c.noBody(),
      responses: { 200: featureSchema, ...errorResponses(401, 403, 404) },
    },
    listAll: {
      method: "GET",
      path: "/features",
      summary: "Every live flag",
      description: "Every live flag of every project the caller can see (deprecated in Unleash in favour of the project lists).",
      responses: { 200: featureListSchema, ...errorResponses(401, 403) },
    },
    search: {
      method: "GET",
      path: "/search/features",
      summary: "Search flags",
      description:
        "Flags matching `query` (name or description), project, type, state and tags, with paging. `tag` takes `type:value` (several separated by commas: any of them), optionally after Unleash's operator: `INCLUDE_ALL_OF:`, `DO_NOT_INCLUDE:` (none of them), `EXCLUDE_ALL:` (not all of them), `INCLUDE:`/`INCLUDE_ANY_OF:` (any).",
      query: featureSearchQuerySchema,
      responses: { 200: featureSearchResultSchema, ...errorResponses(400, 401, 403) },
    },
    validateName: {
      method: "POST",
      path: "/features/validate",
      summary: "Check that a flag name is valid and free",
      description:
        "Answers 200 when the name is URL-friendly and no flag (archived ones included) has it, and, with `projectId`, it matches the project's naming pattern; 409 or 400 otherwise.",
      metadata: { requestExample: { name: "new-checkout", projectId: "default" } },
      body: validateFeatureNameBodySchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 409, 413, 415) },
    },
    listArchived: {
      method: "GET",
      path: "/archive/features",
      summary: "Archived flags",
      description: "Archived flags of every project.",
      responses: { 200: featureListSchema, ...errorResponses(401, 403) },
    },
    listArchivedInProject: {
      method: "GET",
      path: "/archive/features/:projectId",
      summary: "Archived flags of a project",
      description: "Archived flags of one project.",
      responses: { 200: featureListSchema, ...errorResponses(401, 403, 404) },
    },
    deleteArchived: {
      method: "DELETE",
      path: "/archive/:featureName",
      summary: "Delete an archived flag for good",
      description: "Deletes an archived flag with its tags for good; its name becomes free again.",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(401, 403, 404) },
    },
    reviveArchived: {
      method: "POST",
      path: "/archive/revive/:featureName",
      summary: "Revive an archived flag",
      description: "Brings an archived flag back, off in every environment, with its strategies.",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(401, 403, 404) },
    },
  },
  routerOptions,
);
