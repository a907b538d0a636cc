import { z } from "zod";
import { c, dateTimeSchema, errorResponses, resourceName, routerOptions } from "../common.js";
import {
  featureNamingPatternSchema,
  healthReportSchema,
  projectModeSchema,
  projectOverviewSchema,
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
      responses: { 200: projectListSchema, ...errorResponses(401, 403) },
    },
    create: {
      method: "POST",
      path: "/projects",
      summary: "Create a project",
      body: createProjectBodySchema,
      responses: { 201: projectSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
    },
    getOverview: {
      method: "GET",
      path: project,
      summary: "Project overview",
      deprecated: true,
      responses: { 200: projectOverviewSchema, ...errorResponses(401, 403, 404) },
    },
    update: {
      method: "PUT",
      path: project,
      summary: "Update a project's settings",
      body: updateProjectBodySchema,
      responses: { 200: projectSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    delete: {
      method: "DELETE",
      path: project,
      summary: "Delete a project without live flags",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 409) },
    },
    getHealthReport: {
      method: "GET",
      path: `${project}/health-report`,
      summary: "Project health report",
      responses: { 200: healthReportSchema, ...errorResponses(401, 403, 404) },
    },
    addEnvironment: {
      method: "POST",
      path: `${project}/environments`,
      summary: "Enable an environment in a project",
      body: addProjectEnvironmentBodySchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
    },
    removeEnvironment: {
      method: "DELETE",
      path: `${project}/environments/:environment`,
      summary: "Remove an environment from a project",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    getDefaultStrategy: {
      method: "GET",
      path: `${project}/environments/:environment/default-strategy`,
      summary: "The strategy flags get when enabled in this environment without one",
      responses: { 200: strategyFieldsSchema, ...errorResponses(401, 403, 404) },
    },
    setDefaultStrategy: {
      method: "POST",
      path: `${project}/environments/:environment/default-strategy`,
      summary: "Set the default strategy of a project environment",
      body: checkedStrategyFieldsSchema,
      responses: { 200: strategyFieldsSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    putDefaultStrategy: {
      method: "PUT",
      path: `${project}/environments/:environment/default-strategy`,
      summary: "Set the default strategy of a project environment",
      body: checkedStrategyFieldsSchema,
      responses: { 200: strategyFieldsSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    archiveFeatures: {
      method: "POST",
      path: `${project}/archive`,
      summary: "Archive flags of a project",
      body: batchFeaturesBodySchema,
      responses: { 202: c.noBody(), ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    deleteFeatures: {
      method: "POST",
      path: `${project}/delete`,
      summary: "Delete archived flags of a project",
      body: batchFeaturesBodySchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    reviveFeatures: {
      method: "POST",
      path: `${project}/revive`,
      summary: "Revive archived flags of a project",
      body: batchFeaturesBodySchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    addFavorite: {
      method: "POST",
      path: `${project}/favorites`,
      summary: "Mark a project as a favorite of the caller",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(401, 403, 404) },
    },
    removeFavorite: {
      method: "DELETE",
      path: `${project}/favorites`,
      summary: "Unmark a favorite project",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(401, 403, 404) },
    },
    markStale: {
      method: "POST",
      path: `${project}/stale`,
      summary: "Mark flags of a project stale or not stale",
      body: batchStaleBodySchema,
      responses: { 202: c.noBody(), ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    validateArchive: {
      method: "POST",
      path: `${project}/archive/validate`,
      summary: "Check which dependencies archiving these features would break",
      body: validateArchiveBodySchema,
      responses: { 200: validateArchiveResponseSchema, ...errorResponses(400, 401, 403, 415) },
    },
  },
  routerOptions,
);
