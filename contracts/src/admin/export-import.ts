import { z } from "zod";
import { c, errorResponses, routerOptions } from "../common.js";
import { constraintSchema } from "../schemas/constraint.js";
import { legalValueSchema } from "../schemas/context-field.js";
import { strategyParametersSchema } from "../schemas/strategy.js";
import { tagTypeSchema } from "../schemas/tag.js";
import { featureVariantSchema, strategyVariantSchema } from "../schemas/variant.js";

/**
 * Unleash's feature export/import (`/api/admin/features-batch/*`), same bodies in both directions:
 * an export from Unleash imports into Vexil and the other way round. Fields Vexil does not keep
 * (Unleash's ids, timestamps, release plans) are accepted and dropped.
 */

export const exportQuerySchema = z
  .object({
    environment: z.string().min(1).describe("The environment whose strategies, variants and on/off state are exported"),
    features: z.array(z.string().min(1)).optional().describe("Flags to export by name; an empty list exports every flag"),
    tag: z.string().min(1).optional().describe("Export the flags carrying this tag (`value` or `type:value`)"),
    project: z.string().min(1).optional().describe("Export every flag of this project"),
    downloadFile: z.boolean().optional().describe("Answer with `content-disposition: attachment` so browsers save a file"),
  })
  .refine((query) => query.features !== undefined || query.tag !== undefined || query.project !== undefined, {
    message: "Give one of features, tag or project to say which flags to export",
    path: ["features"],
  });
export type ExportQuery = z.infer<typeof exportQuerySchema>;

export const exportedFeatureSchema = z.object({
  name: z.string().min(1),
  description: z.string().nullable().optional(),
  type: z.string().optional(),
  project: z.string().optional(),
  stale: z.boolean().optional(),
  impressionData: z.boolean().optional(),
  archived: z.boolean().optional(),
});

export const exportedStrategySchema = z.object({
  name: z.string().min(1),
  id: z.string().optional(),
  featureName: z.string().min(1),
  title: z.string().nullable().optional(),
  parameters: strategyParametersSchema.optional(),
  constraints: z.array(constraintSchema).optional(),
  variants: z.array(strategyVariantSchema).optional(),
  disabled: z.boolean().nullable().optional(),
  segments: z.array(z.number().int()).optional(),
  sortOrder: z.number().int().optional(),
});
export type ExportedStrategy = z.infer<typeof exportedStrategySchema>;

export const exportedFeatureEnvironmentSchema = z.object({
  name: z.string().min(1).optional(),
  featureName: z.string().min(1).optional(),
  environment: z.string().optional(),
  enabled: z.boolean(),
  variants: z.array(featureVariantSchema).optional(),
});

export const exportedContextFieldSchema = z.object({
  name: z.string().min(1),
  description: z.string().nullable().optional(),
  stickiness: z.boolean().optional(),
  sortOrder: z.number().int().optional(),
  legalValues: z.array(legalValueSchema).optional(),
});

export const exportedFeatureTagSchema = z.object({
  featureName: z.string().min(1),
  tagType: z.string().min(1).optional(),
  tagValue: z.string().min(1),
});

export const exportedSegmentSchema = z.object({ id: z.number().int(), name: z.string().min(1) });

export const exportedDependenciesSchema = z.object({
  feature: z.string().min(1),
  dependencies: z.array(
    z.object({ feature: z.string().min(1), enabled: z.boolean().optional(), variants: z.array(z.string()).optional() }),
  ),
});

export const exportResultSchema = z.object({
  features: z.array(exportedFeatureSchema),
  featureStrategies: z.array(exportedStrategySchema),
  featureEnvironments: z.array(exportedFeatureEnvironmentSchema).optional(),
  contextFields: z.array(exportedContextFieldSchema).optional(),
  featureTags: z.array(exportedFeatureTagSchema).optional(),
  segments: z.array(exportedSegmentSchema).optional(),
  tagTypes: z.array(tagTypeSchema),
  dependencies: z.array(exportedDependenciesSchema).optional(),
  /** Unleash's feature links: Vexil keeps none, so an import reports them in its warnings. */
  links: z.array(z.object({ feature: z.string(), links: z.array(z.object({ url: z.string() }).passthrough()) })).optional(),
});
export type ExportResult = z.infer<typeof exportResultSchema>;

export const importTogglesSchema = z.object({
  project: z.string().min(1).describe("The project to import into"),
  environment: z.string().min(1).describe("The environment that receives the strategies, variants and on/off state"),
  data: exportResultSchema,
});
export type ImportToggles = z.infer<typeof importTogglesSchema>;

export const importValidationItemSchema = z.object({ message: z.string(), affectedItems: z.array(z.string()) });
export type ImportValidationItem = z.infer<typeof importValidationItemSchema>;

export const importValidationSchema = z.object({
  errors: z.array(importValidationItemSchema),
  warnings: z.array(importValidationItemSchema),
  permissions: z.array(importValidationItemSchema),
});
export type ImportValidation = z.infer<typeof importValidationSchema>;

const exampleExport: ExportResult = {
  features: [
    {
      name: "new-checkout",
      description: "The one-page checkout",
      type: "release",
      project: "default",
      stale: false,
      impressionData: false,
      archived: false,
    },
  ],
  featureStrategies: [
    {
      name: "flexibleRollout",
      featureName: "new-checkout",
      title: "Half of the gold tier",
      parameters: { rollout: "50", stickiness: "default", groupId: "new-checkout" },
      constraints: [{ contextName: "tier", operator: "IN", values: ["gold"], caseInsensitive: false, inverted: false }],
      variants: [],
      disabled: false,
      segments: [1],
      sortOrder: 0,
    },
  ],
  featureEnvironments: [{ name: "new-checkout", featureName: "new-checkout", environment: "development", enabled: true, variants: [] }],
  contextFields: [
    { name: "tier", description: "Pricing tier", stickiness: false, sortOrder: 10, legalValues: [{ value: "gold" }, { value: "silver" }] },
  ],
  featureTags: [{ featureName: "new-checkout", tagType: "simple", tagValue: "checkout" }],
  segments: [{ id: 1, name: "beta-testers" }],
  tagTypes: [{ name: "simple", description: "Used to simplify filtering of features", icon: "#" }],
  dependencies: [],
};

export const exportImportContract = c.router(
  {
    export: {
      method: "POST",
      path: "/features-batch/export",
      summary: "Export flags from an environment",
      description:
        "Exports the flags chosen by `features` (an empty list means all), `tag` or `project`, with their strategies, variants, " +
        "on/off state in `environment`, tags, the segments and context fields their strategies use, and their dependencies, in " +
        "Unleash's export format. Segments are exported by id and name; an import maps them by name.",
      body: exportQuerySchema,
      metadata: { requestExample: { environment: "development", project: "default" } },
      responses: { 200: exportResultSchema, ...errorResponses(400, 401, 403, 404, 415) },
    },
    validate: {
      method: "POST",
      path: "/features-batch/validate",
      summary: "Check an import before running it",
      description:
        "Dry run of an import: lists the `errors` that would refuse it (undefined strategies, segments missing in the target, " +
        "flags owned by another project, context fields whose legal values differ, missing dependency parents, naming pattern " +
        "or flag limit violations) and the `warnings` (flags to be overwritten, archived flags skipped). Nothing is written.",
      body: importTogglesSchema,
      metadata: { requestExample: { project: "default", environment: "production", data: exampleExport } },
      responses: { 200: importValidationSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    import: {
      method: "POST",
      path: "/features-batch/import",
      summary: "Import flags into a project and environment",
      description:
        "Imports an export into `project`: creates or updates the flags, their tags, tag types and context fields, and " +
        "replaces their strategies, variants and on/off state in `environment`. All or nothing: any error (the same ones " +
        "`/validate` lists) answers 400 and writes nothing. In an environment with change requests enabled, the strategy, " +
        "variant and on/off changes go into a change request draft instead of being applied.",
      body: importTogglesSchema,
      metadata: { requestExample: { project: "default", environment: "production", data: exampleExport } },
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
  },
  routerOptions,
);
