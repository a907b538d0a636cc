import { z } from "zod";
import { resourceName } from "../common.js";
import { constraintSchema } from "./constraint.js";
import { strategyVariantSchema } from "./variant.js";

/**
 * Strategy parameters: a map of string to string. Numbers and booleans are accepted and turned
 * into strings, because scripts commonly send `rollout: 50`.
 */
export const strategyParametersSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String));
export type StrategyParameters = z.infer<typeof strategyParametersSchema>;

/** Fields a strategy is written with (default strategies, change-request strategy payloads). */
export const strategyFieldsSchema = z.object({
  name: z.string().min(1),
  title: z.string().nullable().optional(),
  disabled: z.boolean().nullable().optional(),
  sortOrder: z.number().int("Must be a whole number").optional(),
  constraints: z.array(constraintSchema).optional(),
  variants: z.array(strategyVariantSchema).optional(),
  parameters: strategyParametersSchema.optional(),
  segments: z.array(z.number().int()).optional(),
});
export type StrategyFields = z.infer<typeof strategyFieldsSchema>;

/** The built-in strategies whose percentage the evaluator reads, and the parameter holding it. */
const percentageParameter: Record<string, string> = {
  flexibleRollout: "rollout",
  gradualRolloutRandom: "percentage",
  gradualRolloutSessionId: "percentage",
  gradualRolloutUserId: "percentage",
};

/**
 * The range check every strategy write goes through (direct, patched, proposed in a change request,
 * a project's default): its percentage, if it has one, a whole number 0 to 100.
 */
export function checkStrategyPercentage(strategy: { name: string; parameters?: StrategyParameters }, ctx: z.RefinementCtx): void {
  const parameter = Object.hasOwn(percentageParameter, strategy.name) ? percentageParameter[strategy.name]! : undefined;
  const value =
    parameter && strategy.parameters && Object.hasOwn(strategy.parameters, parameter) ? strategy.parameters[parameter] : undefined;
  if (value === undefined) return;
  if (!/^\d{1,3}$/.test(value.trim()) || Number(value) > 100) {
    ctx.addIssue({ code: "custom", path: ["parameters", parameter!], message: `Must be a whole number from 0 to 100, got "${value}"` });
  }
}

/** A strategy as written in a request, range-checked. */
export const checkedStrategyFieldsSchema = strategyFieldsSchema.superRefine(checkStrategyPercentage);

/** A strategy inside a feature environment. */
export const featureStrategySchema = strategyFieldsSchema.extend({
  id: z.string().uuid().optional(),
  featureName: z.string().optional(),
});
export type FeatureStrategy = z.infer<typeof featureStrategySchema>;

export const strategyDefinitionParameterSchema = z.object({
  name: z.string().optional(),
  type: z.string().optional(),
  description: z.string().optional(),
  required: z.boolean().optional(),
});
export type StrategyDefinitionParameter = z.infer<typeof strategyDefinitionParameterSchema>;

/** A strategy type (`default`, `flexibleRollout`, custom ones). */
export const strategyDefinitionSchema = z.object({
  title: z.string().nullable().optional(),
  name: z.string(),
  displayName: z.string().nullable(),
  description: z.string().nullable(),
  editable: z.boolean(),
  deprecated: z.boolean(),
  parameters: z.array(strategyDefinitionParameterSchema),
});
export type StrategyDefinition = z.infer<typeof strategyDefinitionSchema>;

export const strategyListSchema = z.object({
  version: z.literal(1),
  strategies: z.array(strategyDefinitionSchema),
});
export type StrategyList = z.infer<typeof strategyListSchema>;

/** A custom strategy definition as written: names travel in paths, so they are URL-friendly. */
export const upsertStrategyDefinitionSchema = z.object({
  name: resourceName(
    z
      .string()
      .min(1)
      .max(100)
      .regex(/^[A-Za-z0-9._~-]+$/, "Must be URL friendly: letters, digits and . _ ~ -"),
  ),
  title: z.string().nullable().optional(),
  displayName: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  editable: z.boolean().optional(),
  deprecated: z.boolean().optional(),
  parameters: z
    .array(
      z.object({
        name: z.string().min(1),
        type: z.enum(["string", "percentage", "list", "number", "boolean"]),
        description: z.string().optional(),
        required: z.boolean().optional(),
      }),
    )
    .default([]),
});
export type UpsertStrategyDefinition = z.infer<typeof upsertStrategyDefinitionSchema>;

export const savedStrategySchema = featureStrategySchema.extend({ id: z.string().uuid() });
export const strategySortOrderBodySchema = z.array(z.object({ id: z.string(), sortOrder: z.number().int("Must be a whole number") }));
export const savedStrategyListSchema = z.array(savedStrategySchema);
