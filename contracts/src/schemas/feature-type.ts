import { z } from "zod";

/**
 * Unleash's flag types and their expected lifetimes in days (null: permanent). The one list of flag
 * types: the API schemas, the admin's checks and project health all read it. (The spec lists
 * examples; Unleash 8 also has `sunset`.)
 */
export const featureTypeLifetimes = {
  release: 40,
  experiment: 40,
  operational: 7,
  "kill-switch": null,
  permission: null,
  sunset: 90,
} as const satisfies Record<string, number | null>;
export type FeatureType = keyof typeof featureTypeLifetimes;
export const featureTypeNames = Object.keys(featureTypeLifetimes) as [FeatureType, ...FeatureType[]];
export const featureTypeSchema = z.enum(featureTypeNames);

/** A flag type with the lifetime after which a flag of it counts as potentially stale (null: permanent). */
export const featureTypeEntrySchema = z.object({
  id: featureTypeSchema,
  name: z.string(),
  description: z.string(),
  lifetimeDays: z.number().int().nullable(),
});
export const featureTypeListSchema = z.object({ version: z.literal(1), types: z.array(featureTypeEntrySchema) });
export type FeatureTypeList = z.infer<typeof featureTypeListSchema>;
