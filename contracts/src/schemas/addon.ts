import { z } from "zod";
import { jsonObjectSchema } from "../common.js";

/** Providers every installation knows; others may be registered, so the field stays a string. */
export const defaultAddonProviders = ["datadog", "slack", "teams", "webhook"] as const;

export const addonRequestSchema = z.object({
  provider: z.string().min(1),
  description: z.string().optional(),
  enabled: z.boolean(),
  parameters: jsonObjectSchema,
  events: z.array(z.string()),
  projects: z.array(z.string()).optional(),
  environments: z.array(z.string()).optional(),
});
export type AddonRequest = z.infer<typeof addonRequestSchema>;

export const addonSchema = z.object({
  id: z.number().int().min(1),
  provider: z.string(),
  description: z.string().nullable(),
  enabled: z.boolean(),
  parameters: jsonObjectSchema,
  events: z.array(z.string()),
  projects: z.array(z.string()).optional(),
  environments: z.array(z.string()).optional(),
});
export type Addon = z.infer<typeof addonSchema>;

export const addonListSchema = z.object({
  addons: z.array(addonSchema),
  providers: z.array(jsonObjectSchema).optional(),
});
export type AddonList = z.infer<typeof addonListSchema>;
