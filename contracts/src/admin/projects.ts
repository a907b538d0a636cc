import { z } from "zod";
import { c, dateTimeSchema, errorResponses, resourceName, routerOptions } from "../common.js";
import {
  featureNamingPatternSchema,
  healthReportSchema,
  projectModeSchema,
  projectOverviewSchema,
  projectSummarySchema,
  checkedStrategyFieldsSchema,
  strategyFieldsSchema,
  validateArchiveBodySchema,
  validateArchiveResponseSchema,
} from "../schemas/index.js";

/** A project in the list (Unleash's projectSchema subset that Vexil computes). */
export const projectListItemSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  mode: projectModeSchema,
  health: z.number().int(),
  featureCount: z.number().int(),
  memberCount: z.number().int(),
  createdAt: dateTimeSchema,
  updatedAt: dateTimeSchema.nullable(),
  favorite: z.boolean(),
});
export type ProjectListItem = z.infer<typeof projectListItemSchema>;

export const projectListSchema = z.object({ version: z.literal(1), projects: z.array(projectListItemSchema) });

const projectFieldsSchema = z.object({
  name: z.string().min(1).max(100),
  description: z.string().max(1000).nullable().optional(),
  mode: projectModeSchema.optional(),
  defaultStickiness: z.string().min(1).optional(),
  featureLimit: z.number().int().min(0).nullable().optional(),
  featureNaming: featureNamingPatternSchema.nullable().optional(),
});

export const createProjectBodySchema = projectFieldsSchema.extend({
  id: resourceName(z.string().min(1).max(100)),
  /** Environments to enable; every enabled environment when absent. */
  environments: z.array(z.string()).optional(),
});
export type CreateProjectBody = z.infer<typeof createProjectBodySchema>;

export const updateProjectBodySchema = projectFieldsSchema;
export type UpdateProjectBody = z.infer<typeof updateProjectBodySchema>;

/** A project as created/updated: its settings. */
export const projectSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  mode: projectModeSchema,
  defaultStickiness: z.string(),
  featureLimit: z.number().nullable(),
  featureNaming: featureNamingPatternSchema.nullable(),
  environments: z.array(z.string()),
  createdAt: dateTimeSchema,
  updatedAt: dateTimeSchema.nullable(),
});
export type Project = z.infer<typeof projectSchema>;

export const addProjectEnvironmentBodySchema = z.object({
  environment: z.string().min(1),
  changeRequestsEnabled: z.boolean().optional(),
  defaultStrategy: checkedStrategyFieldsSchema.optional(),
});

/** `{ features: [...] }` for the bulk archive, delete and revive. */
export const batchFeaturesBodySchema = z.object({ features: z.array(z.string().min(1)).min(1) });
export const batchStaleBodySchema = batchFeaturesBodySchema.extend({ stale: z.boolean() });

const project = "/projects/:projectId";

export const projectsContract = c.router(
  {
    list: {
      method: "GET",
      path: "/projects",
      summary: "List projects",
      description: "Every project the caller can see, with flag and member counts, health and whether it is a favorite.",
      responses: { 200: projectListSchema, ...errorResponses(401, 403) },
    },
    create: {
      method: "POST",
      path: "/projects",
      summary: "Create a project",
      description:
        "Creates a project with its collaboration mode (open, protected, private), default stickiness, flag limit, naming pattern and environments (every enabled one unless listed).",
      metadata: {
        requestExample: {
          id: "checkout",
          name: "Checkout",
          description: "The checkout team",
          mode: "open",
          defaultStickiness: "userId",
          featureLimit: 100,
          featureNaming: { pattern: "^checkout-.+$", example: "checkout-new-form", description: "Start with checkout-" },
          environments: ["development", "production"],
        },
      },
      body: createProjectBodySchema,
      responses: { 201: projectSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
    },
    getOverview: {
      method: "GET",
      path: project,
      summary: "Project overview",
      description:
        "The project with its settings, environments, live flags, health and activity statistics (Unleash's deprecated overview).",
      deprecated: true,
      responses: { 200: projectOverviewSchema, ...errorResponses(401, 403, 404) },
    },
    update: {
      method: "PUT",
      path: project,
      summary: "Update a project's settings",
      description: "Changes the project's name, description, mode, default stickiness, flag limit and naming pattern.",
      metadata: {
        requestExample: {
          name: "Checkout",
          description: "The checkout team",
          mode: "protected",
          defaultStickiness: "userId",
          featureLimit: 150,
        },
      },
      body: updateProjectBodySchema,
      responses: { 200: projectSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    delete: {
      method: "DELETE",
      path: project,
      summary: "Delete a project without live flags",
      description: "Deletes a project that has no live flags; its archived flags go with it. The default project cannot be deleted.",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 409) },
    },
    getSummary: {
      method: "GET",
      path: `${project}/overview`,
      summary: "Project overview without its flags",
      description:
        "The project's settings, environments, health (and technical debt), activity statistics and how many live flags of each type it holds: what a screen about the project needs, without reading every flag.",
      responses: { 200: projectSummarySchema, ...errorResponses(401, 403, 404) },
    },
    getHealthReport: {
      method: "GET",
      path: `${project}/health-report`,
      summary: "Project health report",
      description:
        "The project's health: the share of flags that are neither stale nor past their expected lifetime, with the counts behind it.",
      responses: { 200: healthReportSchema, ...errorResponses(401, 403, 404) },
    },
    addEnvironment: {
      method: "POST",
      path: `${project}/environments`,
      summary: "Enable an environment in a project",
      description: "Enables an environment in the project, optionally with a default strategy and with change requests required.",
      metadata: {
        requestExample: {
          environment: "staging",
          changeRequestsEnabled: false,
          defaultStrategy: { name: "flexibleRollout", parameters: { rollout: "100", stickiness: "default", groupId: "" }, constraints: [] },
        },
      },
      body: addProjectEnvironmentBodySchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
    },
    removeEnvironment: {
      method: "DELETE",
      path: `${project}/environments/:environment`,
      summary: "Remove an environment from a project",
      description:
        "Disables an environment in the project; the flags' settings there are kept for when it comes back. A project keeps at least one environment.",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    getDefaultStrategy: {
      method: "GET",
      path: `${project}/environments/:environment/default-strategy`,
      summary: "The strategy flags get when enabled in this environment without one",
      description: "The strategy flags of the project get when they are turned on in this environment without an active strategy.",
      responses: { 200: strategyFieldsSchema, ...errorResponses(401, 403, 404) },
    },
    setDefaultStrategy: {
      method: "POST",
      path: `${project}/environments/:environment/default-strategy`,
      summary: "Set the default strategy of a project environment",
      description: "Sets the default strategy of the project environment (checked as a flag strategy is).",
      metadata: {
        requestExample: { name: "flexibleRollout", parameters: { rollout: "100", stickiness: "default", groupId: "" }, constraints: [] },
      },
      body: checkedStrategyFieldsSchema,
      responses: { 200: strategyFieldsSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    putDefaultStrategy: {
      method: "PUT",
      path: `${project}/environments/:environment/default-strategy`,
      summary: "Set the default strategy of a project environment",
      description: "Same as the POST: sets the default strategy of the project environment.",
      metadata: {
        requestExample: { name: "flexibleRollout", parameters: { rollout: "50", stickiness: "userId", groupId: "" }, constraints: [] },
      },
      body: checkedStrategyFieldsSchema,
      responses: { 200: strategyFieldsSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    archiveFeatures: {
      method: "POST",
      path: `${project}/archive`,
      summary: "Archive flags of a project",
      description: "Archives several flags of the project at once, removing the dependencies that touch them.",
      metadata: { requestExample: { features: ["old-banner", "old-checkout"] } },
      body: batchFeaturesBodySchema,
      responses: { 202: c.noBody(), ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    deleteFeatures: {
      method: "POST",
      path: `${project}/delete`,
      summary: "Delete archived flags of a project",
      description: "Deletes several archived flags of the project for good.",
      metadata: { requestExample: { features: ["old-banner"] } },
      body: batchFeaturesBodySchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    reviveFeatures: {
      method: "POST",
      path: `${project}/revive`,
      summary: "Revive archived flags of a project",
      description: "Revives several archived flags of the project, off in every environment.",
      metadata: { requestExample: { features: ["old-checkout"] } },
      body: batchFeaturesBodySchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    addFavorite: {
      method: "POST",
      path: `${project}/favorites`,
      summary: "Mark a project as a favorite of the caller",
      description: "Marks the project as a favorite of the signed-in user.",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(401, 403, 404) },
    },
    removeFavorite: {
      method: "DELETE",
      path: `${project}/favorites`,
      summary: "Unmark a favorite project",
      description: "Removes the project from the user's favorites.",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(401, 403, 404) },
    },
    markStale: {
      method: "POST",
      path: `${project}/stale`,
      summary: "Mark flags of a project stale or not stale",
      description: "Marks several flags of the project stale (or not, with `stale: false`).",
      metadata: { requestExample: { features: ["old-banner", "old-checkout"], stale: true } },
      body: batchStaleBodySchema,
      responses: { 202: c.noBody(), ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    validateArchive: {
      method: "POST",
      path: `${project}/archive/validate`,
      summary: "Check which dependencies archiving these features would break",
      description:
        "Before archiving these flags: which of them are parents of flags that stay, and whether any dependency would be deleted.",
      metadata: { requestExample: { features: ["new-checkout"] } },
      body: validateArchiveBodySchema,
      responses: { 200: validateArchiveResponseSchema, ...errorResponses(400, 401, 403, 415) },
    },
  },
  routerOptions,
);
