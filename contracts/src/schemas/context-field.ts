import { z } from "zod";
import { dateTimeSchema, resourceName } from "../common.js";

export const legalValueSchema = z.object({
  value: z.string().min(1).max(100),
  description: z.string().optional(),
});
export type LegalValue = z.infer<typeof legalValueSchema>;

/** A context field: what constraints and custom stickiness can refer to. */
export const contextFieldSchema = z.object({
  name: z.string(),
  description: z.string().nullable(),
  stickiness: z.boolean(),
  sortOrder: z.number(),
  legalValues: z.array(legalValueSchema),
  createdAt: dateTimeSchema.nullable(),
  usedInFeatures: z.number().int().nullable().optional(),
  usedInProjects: z.number().int().nullable().optional(),
});
export type ContextField = z.infer<typeof contextFieldSchema>;

export const contextFieldListSchema = z.array(contextFieldSchema);

export const upsertContextFieldBodySchema = z.object({
  name: resourceName(
    z
      .string()
      .min(1)
      .max(100)
      .regex(/^[A-Za-z0-9._~-]+$/, "Must be URL friendly: letters, digits and . _ ~ -"),
  ),
  description: z.string().nullable().optional(),
  stickiness: z.boolean().optional(),
  sortOrder: z.number().int().optional(),
  legalValues: z
    .array(legalValueSchema)
    .refine((values) => new Set(values.map((v) => v.value)).size === values.length, "legalValues must not repeat a value")
    .optional(),
});
export type UpsertContextFieldBody = z.infer<typeof upsertContextFieldBodySchema>;

export const contextFieldNameBodySchema = z.object({ name: z.string().min(1) });
