import { z } from "zod";
import { resourceName } from "../common.js";

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

/** POST /api/admin/tags body: a whole Tag, `type` required as in the spec's Tag and as Unleash refuses it missing (400). */
export const createTagBodySchema = z.object({
  value: tagValueSchema,
  type: tagTypeNameSchema,
});
export type CreateTagBody = z.infer<typeof createTagBodySchema>;

export const createTagResponseSchema = z.object({
  version: z.number().int(),
  tag: tagSchema,
});
export type CreateTagResponse = z.infer<typeof createTagResponseSchema>;

/** Tag type names travel in paths, so they are URL-friendly like Unleash's. */
export const urlFriendlyName = resourceName(
  z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9._~-]+$/, "Must be URL friendly: letters, digits and . _ ~ -"),
);

export const tagTypeSchema = z.object({
  name: z.string(),
  description: z.string().nullable().optional(),
  icon: z.string().nullable().optional(),
  color: z.string().nullable().optional(),
});
export type TagType = z.infer<typeof tagTypeSchema>;

export const createTagTypeBodySchema = z.object({
  name: urlFriendlyName,
  description: z.string().nullable().optional(),
  icon: z.string().nullable().optional(),
  color: z.string().nullable().optional(),
});
export type CreateTagTypeBody = z.infer<typeof createTagTypeBodySchema>;

export const updateTagTypeBodySchema = createTagTypeBodySchema.omit({ name: true }).extend({ name: z.string().optional() });
export type UpdateTagTypeBody = z.infer<typeof updateTagTypeBodySchema>;

export const tagTypeListSchema = z.object({ version: z.number().int(), tagTypes: z.array(tagTypeSchema) });
export const tagTypeResponseSchema = z.object({ version: z.number().int(), tagType: tagTypeSchema });
export const tagNameBodySchema = z.object({ name: z.string().min(1) });
export const validTagTypeSchema = z.object({ valid: z.literal(true), tagType: z.object({ name: z.string() }) });

export const tagListSchema = z.object({ version: z.number().int(), tags: z.array(tagSchema) });
export type TagList = z.infer<typeof tagListSchema>;

/** `PUT /api/admin/features/:featureName/tags`: tags to add and remove in one change. */
export const updateFeatureTagsBodySchema = z.object({
  addedTags: z.array(tagSchema).default([]),
  removedTags: z.array(tagSchema).default([]),
});
export type UpdateFeatureTagsBody = z.infer<typeof updateFeatureTagsBodySchema>;
