import { z } from "zod";
import { constraintSchema } from "./constraint.js";
import { legalValueSchema } from "./context-field.js";
import { strategyParametersSchema } from "./strategy.js";
import { tagTypeSchema } from "./tag.js";
import { featureVariantSchema, strategyVariantSchema } from "./variant.js";

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
  /** Unleash's feature links: an import leaves them out and names them in its warnings (Vexil's exports have none). */
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
