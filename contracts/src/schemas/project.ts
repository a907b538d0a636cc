import { z } from "zod";
import { dateTimeSchema, resourceName } from "../common.js";
import { featureSchema } from "./feature.js";
import { checkedStrategyFieldsSchema, strategyFieldsSchema } from "./strategy.js";

export const projectModes = ["open", "protected", "private"] as const;
export const projectModeSchema = z.enum(projectModes);
export type ProjectMode = z.infer<typeof projectModeSchema>;

export const projectEnvironmentSchema = z.object({
  environment: z.string(),
  changeRequestsEnabled: z.boolean().optional(),
  defaultStrategy: strategyFieldsSchema.optional(),
});
export type ProjectEnvironment = z.infer<typeof projectEnvironmentSchema>;

/** `pattern` is a JavaScript regular expression without delimiters or flags; `example` must match it. */
export const featureNamingPatternSchema = z.object({
  pattern: z.string().nullable(),
  example: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
});
export type FeatureNamingPattern = z.infer<typeof featureNamingPatternSchema>;

export const projectStatisticsSchema = z.object({
  avgTimeToProdCurrentWindow: z.number(),
  createdCurrentWindow: z.number(),
  createdPastWindow: z.number(),
  archivedCurrentWindow: z.number(),
  archivedPastWindow: z.number(),
  projectActivityCurrentWindow: z.number(),
  projectActivityPastWindow: z.number(),
  projectMembersAddedCurrentWindow: z.number(),
});
export type ProjectStatistics = z.infer<typeof projectStatisticsSchema>;

/** GET /api/admin/projects/:projectId (deprecated). Archived features are excluded from `features`. */
export const projectOverviewSchema = z.object({
  version: z.number().int(),
  name: z.string(),
  description: z.string().nullable().optional(),
  defaultStickiness: z.string().optional(),
  mode: projectModeSchema.optional(),
  featureLimit: z.number().nullable().optional(),
  featureNaming: featureNamingPatternSchema.optional(),
  members: z.number().optional(),
  health: z.number().min(0).max(100).optional(),
  environments: z.array(projectEnvironmentSchema).optional(),
  features: z.array(featureSchema).optional(),
  stats: projectStatisticsSchema.optional(),
  updatedAt: dateTimeSchema.nullable().optional(),
  createdAt: dateTimeSchema.nullable().optional(),
  favorite: z.boolean().optional(),
});
export type ProjectOverview = z.infer<typeof projectOverviewSchema>;

/**
 * GET /api/admin/projects/:projectId/overview (Unleash's getProjectOverview): the project's settings,
 * environments, health and statistics with its live flags counted per type, not listed.
 */
export const projectSummarySchema = z.object({
  version: z.literal(1),
  name: z.string(),
  description: z.string().nullable(),
  defaultStickiness: z.string(),
  mode: projectModeSchema,
  featureLimit: z.number().nullable(),
  featureNaming: featureNamingPatternSchema,
  members: z.number().int(),
  /** Deprecated in Unleash for `technicalDebt`, which is 100 minus it. */
  health: z.number().int(),
  technicalDebt: z.number().int().min(0).max(100),
  environments: z.array(projectEnvironmentSchema),
  featureTypeCounts: z.array(z.object({ type: z.string(), count: z.number().int() })),
  stats: projectStatisticsSchema,
  createdAt: dateTimeSchema,
  updatedAt: dateTimeSchema,
  favorite: z.boolean(),
});
export type ProjectSummary = z.infer<typeof projectSummarySchema>;

/** GET /api/admin/projects/:projectId/health-report. */
export const healthReportSchema = z.object({
  version: z.number().int(),
  name: z.string(),
  description: z.string().nullable().optional(),
  defaultStickiness: z.string(),
  mode: projectModeSchema,
  featureLimit: z.number().nullable().optional(),
  featureNaming: featureNamingPatternSchema.optional(),
  members: z.number().int(),
  health: z.number().int(),
  environments: z.array(projectEnvironmentSchema),
  features: z.array(featureSchema),
  stats: projectStatisticsSchema.optional(),
  updatedAt: dateTimeSchema.nullable().optional(),
  createdAt: dateTimeSchema.nullable().optional(),
  favorite: z.boolean().optional(),
  potentiallyStaleCount: z.number(),
  activeCount: z.number(),
  staleCount: z.number(),
});
export type HealthReport = z.infer<typeof healthReportSchema>;

/** POST /api/admin/projects/:projectId/archive/validate body. */
export const validateArchiveBodySchema = z.object({
  features: z.array(z.string()),
});
export type ValidateArchiveBody = z.infer<typeof validateArchiveBodySchema>;

export const validateArchiveResponseSchema = z.object({
  parentsWithChildFeatures: z.array(z.string()),
  hasDeletedDependencies: z.boolean(),
});
export type ValidateArchiveResponse = z.infer<typeof validateArchiveResponseSchema>;

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
