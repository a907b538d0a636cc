import { z } from "zod";

export const variantPayloadSchema = z.object({
  type: z.enum(["json", "csv", "string", "number"]),
  value: z.string(),
});
export type VariantPayload = z.infer<typeof variantPayloadSchema>;

export const weightTypeSchema = z.enum(["variable", "fix"]);
export type WeightType = z.infer<typeof weightTypeSchema>;

/** Highest weight and the total all variant weights are spread to. */
export const VARIANT_WEIGHT_TOTAL = 1000;

/** A variant attached to one strategy. */
export const strategyVariantSchema = z.object({
  name: z.string().min(1),
  weight: z.number().int().min(0).max(VARIANT_WEIGHT_TOTAL),
  weightType: weightTypeSchema,
  stickiness: z.string(),
  payload: variantPayloadSchema.optional(),
});
export type StrategyVariant = z.infer<typeof strategyVariantSchema>;

export const variantOverrideSchema = z.object({
  contextName: z.string(),
  values: z.array(z.string()),
});
export type VariantOverride = z.infer<typeof variantOverrideSchema>;

/** A feature variant, per environment (and the deprecated feature-level list). */
export const featureVariantSchema = z.object({
  name: z.string().min(1),
  weight: z.number().min(0).max(VARIANT_WEIGHT_TOTAL),
  weightType: weightTypeSchema.optional(),
  stickiness: z.string().optional(),
  payload: variantPayloadSchema.optional(),
  overrides: z.array(variantOverrideSchema).optional(),
});
export type FeatureVariant = z.infer<typeof featureVariantSchema>;

/**
 * A full replacement list of feature variants (PUT .../environments/:environment/variants, change action patchVariant). The list
 * rules live here so every write path rejects the same bodies: names are unique, at least one
 * variant is `variable` (a missing weightType counts as variable, as in Unleash), and the `fix`
 * weights sum strictly below 1000 so something is left for the variable ones.
 */
export const featureVariantListSchema = z.array(featureVariantSchema).superRefine((variants, ctx) => {
  const seen = new Set<string>();
  variants.forEach((variant, index) => {
    if (seen.has(variant.name)) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: [index, "name"],
        message: `Variant names must be unique; "${variant.name}" appears more than once`,
      });
    }
    seen.add(variant.name);
  });
  if (variants.length === 0) return;
  if (!variants.some((variant) => (variant.weightType ?? "variable") === "variable")) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message: "There must be at least one variant with weightType 'variable'",
    });
  }
  const fixedTotal = variants.filter((variant) => variant.weightType === "fix").reduce((sum, variant) => sum + variant.weight, 0);
  if (fixedTotal >= VARIANT_WEIGHT_TOTAL) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message: `The weights of 'fix' variants must sum to less than ${VARIANT_WEIGHT_TOTAL} (got ${fixedTotal})`,
    });
  }
});
