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
