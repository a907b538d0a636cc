import { z } from "zod";

/**
 * The OpenFeature Remote Evaluation Protocol (OFREP 0.3.0, open-feature/protocol
 * `service/openapi.yaml`): the two core operations, with the protocol's bodies and error codes.
 */

/**
 * The evaluation context: `targetingKey` becomes Unleash's `userId`; other keys are context fields.
 * The key may be left out (an anonymous user): OpenFeature's evaluation context does not require
 * it, and Unleash evaluates a context without a `userId` by its own rules.
 */
export const ofrepContextSchema = z
  .object({
    targetingKey: z
      .string()
      .optional()
      .describe("Who is evaluated; Vexil reads it as the Unleash context's userId. Leave it out for an anonymous user"),
  })
  .catchall(z.unknown());

export const ofrepEvaluationRequestSchema = z.object({ context: ofrepContextSchema.optional() });
export type OfrepEvaluationRequest = z.infer<typeof ofrepEvaluationRequestSchema>;

/** OpenFeature's resolution reasons Vexil gives (`ERROR` is what a provider reports for an error body). */
export const ofrepReasonSchema = z.enum(["STATIC", "TARGETING_MATCH", "SPLIT", "DISABLED", "DEFAULT"]);
export type OfrepReason = z.infer<typeof ofrepReasonSchema>;

export const ofrepMetadataSchema = z.record(z.string(), z.union([z.boolean(), z.string(), z.number()]));

export const ofrepEvaluationSuccessSchema = z.object({
  key: z.string(),
  reason: ofrepReasonSchema,
  variant: z.string().optional(),
  metadata: ofrepMetadataSchema.optional(),
  value: z.union([z.boolean(), z.string(), z.number(), z.record(z.string(), z.unknown())]),
});
export type OfrepEvaluationSuccess = z.infer<typeof ofrepEvaluationSuccessSchema>;

export const ofrepEvaluationFailureSchema = z.object({
  key: z.string(),
  errorCode: z.enum(["PARSE_ERROR", "INVALID_CONTEXT", "GENERAL"]),
  errorDetails: z.string().optional(),
  metadata: ofrepMetadataSchema.optional(),
});
export type OfrepEvaluationFailure = z.infer<typeof ofrepEvaluationFailureSchema>;

export const ofrepFlagNotFoundSchema = z.object({
  key: z.string(),
  errorCode: z.literal("FLAG_NOT_FOUND"),
  errorDetails: z.string().optional(),
  metadata: ofrepMetadataSchema.optional(),
});

export const ofrepBulkEvaluationSuccessSchema = z.object({
  flags: z.array(z.union([ofrepEvaluationSuccessSchema, ofrepEvaluationFailureSchema])),
  metadata: ofrepMetadataSchema.optional(),
});

/** A whole bulk request refused: the error code without a flag key. */
export const ofrepBulkEvaluationFailureSchema = z.object({
  errorCode: z.enum(["PARSE_ERROR", "INVALID_CONTEXT", "GENERAL"]),
  errorDetails: z.string().optional(),
});

export const ofrepGeneralErrorSchema = z.object({ errorDetails: z.string().optional() });
