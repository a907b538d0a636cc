import { z } from "zod";

/** Unleash's tag value rule, checked before the surrounding whitespace is trimmed. */
export const TAG_VALUE_PATTERN = /^\s*\S.{0,48}\S\s*$/;

export const tagValueSchema = z
  .string()
  .regex(TAG_VALUE_PATTERN, "Tag value must be 2 to 50 characters, not starting or ending with only whitespace")
  .trim()
  .min(2)
  .max(50);

export const tagTypeNameSchema = z.string().trim().min(2).max(50);

export const tagSchema = z.object({
  value: tagValueSchema,
  type: tagTypeNameSchema,
});
export type Tag = z.infer<typeof tagSchema>;

/**
 * Endpoint 18 body. The spec requires only `value`; `type` falls back to `simple`, the tag type
 * every Unleash installation ships with.
 */
export const createTagBodySchema = z.object({
  value: tagValueSchema,
  type: tagTypeNameSchema.default("simple"),
});
export type CreateTagBody = z.infer<typeof createTagBodySchema>;

export const createTagResponseSchema = z.object({
  version: z.number().int(),
  tag: tagSchema,
});
export type CreateTagResponse = z.infer<typeof createTagResponseSchema>;
