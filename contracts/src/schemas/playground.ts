import { z } from "zod";
import { dateTimeSchema } from "../common.js";
import { constraintSchema } from "./constraint.js";
import { featureVariantSchema, variantPayloadSchema } from "./variant.js";

/**
 * The playground (`POST /api/admin/playground`): how every flag of some projects evaluates in one
 * environment for one context, and why, in Unleash's shape (playgroundRequestSchema and
 * playgroundResponseSchema of Unleash 8.2.0).
 */

const scalarSchema = z.union([z.string(), z.number(), z.boolean()]);

/** The context fields the SDKs keep at the top level; any other is a property. */
export const sdkContextFields: ReadonlySet<string> = new Set([
  "appName",
  "userId",
  "sessionId",
  "remoteAddress",
  "environment",
  "currentTime",
  "properties",
]);

/** The SDK context; any other top-level scalar field is taken as a property, as the SDKs read it. */
export const playgroundContextSchema = z
  .object({
    appName: z.string().min(1).describe("The name of the application"),
    userId: z.string().optional(),
    sessionId: z.string().optional(),
    remoteAddress: z.string().optional(),
    environment: z.string().optional().describe("Deprecated; the request's `environment` decides"),
    currentTime: dateTimeSchema.optional().describe("The time to evaluate date constraints at; now when absent"),
    properties: z.record(z.string(), z.string()).optional(),
  })
  .passthrough()
  .superRefine((context, ctx) => {
    for (const [key, value] of Object.entries(context)) {
      if (!sdkContextFields.has(key) && !scalarSchema.safeParse(value).success)
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: [key], message: "A context field must be a string, number or boolean" });
    }
  });
export type PlaygroundContext = z.infer<typeof playgroundContextSchema>;

export const playgroundRequestSchema = z.object({
  environment: z.string().min(1).describe("The environment to evaluate the flags in"),
  projects: z
    .union([z.literal("*"), z.array(z.string().min(1))])
    .optional()
    .describe('The projects whose flags are evaluated: a list, or "*" (the default) for all'),
  context: playgroundContextSchema,
});
export type PlaygroundRequest = z.infer<typeof playgroundRequestSchema>;

export const playgroundConstraintSchema = constraintSchema.extend({
  result: z.boolean().describe("Whether the context satisfies this constraint"),
});
export type PlaygroundConstraint = z.infer<typeof playgroundConstraintSchema>;

export const playgroundSegmentSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  result: z.boolean().describe("Whether the context satisfies every constraint of the segment"),
  constraints: z.array(playgroundConstraintSchema),
});
export type PlaygroundSegment = z.infer<typeof playgroundSegmentSchema>;

export const playgroundStrategyResultSchema = z.union([
  z.object({
    evaluationStatus: z.literal("complete"),
    enabled: z.boolean().describe("Whether the strategy's constraints, segments and rule all pass"),
  }),
  z.object({
    evaluationStatus: z
      .enum(["incomplete", "unevaluated"])
      .describe("`incomplete`: a custom strategy, whose rule Vexil cannot run; `unevaluated`: a disabled strategy"),
    enabled: z.union([z.literal(false), z.literal("unknown")]),
  }),
]);
export type PlaygroundStrategyResult = z.infer<typeof playgroundStrategyResultSchema>;

export const playgroundStrategySchema = z.object({
  name: z.string(),
  id: z.string(),
  title: z.string().nullable().optional(),
  result: playgroundStrategyResultSchema,
  disabled: z.boolean().nullable(),
  parameters: z.record(z.string(), z.string()),
  constraints: z.array(playgroundConstraintSchema),
  segments: z.array(playgroundSegmentSchema),
  links: z.object({ edit: z.string() }).describe("Where the admin UI edits this strategy"),
});
export type PlaygroundStrategy = z.infer<typeof playgroundStrategySchema>;

export const playgroundFeatureSchema = z.object({
  name: z.string(),
  projectId: z.string(),
  strategies: z.object({
    result: z
      .union([z.boolean(), z.literal("unknown")])
      .describe("Whether any strategy passes; `unknown` when none does but one could not be evaluated"),
    data: z.array(playgroundStrategySchema),
  }),
  hasUnsatisfiedDependency: z.boolean().describe("Whether a parent flag's condition is not met"),
  isEnabledInCurrentEnvironment: z.boolean(),
  isEnabled: z.boolean().describe("What the SDKs answer for this context"),
  variant: z.object({
    name: z.string(),
    enabled: z.boolean(),
    payload: variantPayloadSchema.optional(),
    feature_enabled: z.boolean().optional(),
    featureEnabled: z
      .boolean()
      .optional()
      .describe(
        "Deprecated, the same as feature_enabled: given, as Unleash gives it, for an enabled flag unless a strategy's variant answered",
      ),
  }),
  variants: z.array(featureVariantSchema),
});
export type PlaygroundFeature = z.infer<typeof playgroundFeatureSchema>;

export const playgroundResponseSchema = z.object({
  input: playgroundRequestSchema,
  features: z.array(playgroundFeatureSchema),
});
export type PlaygroundResponse = z.infer<typeof playgroundResponseSchema>;
