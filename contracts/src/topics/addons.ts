import { z } from "zod";
import { jsonObjectSchema } from "../common.js";
import { integrationEventsQuerySchema, integrationEventsSchema } from "../schemas/addon.js";
import { notice, request } from "./topic.js";

/**
 * An addon as the delivery service needs it: parameters in clear, because it signs and sends with
 * them. Travels only on the internal bus (admin → addon-delivery), never over HTTP.
 */
export const addonConfigSchema = z.object({
  id: z.number().int().min(1),
  provider: z.string(),
  enabled: z.boolean(),
  parameters: jsonObjectSchema,
  events: z.array(z.string()),
  projects: z.array(z.string()),
  environments: z.array(z.string()),
});
export type AddonConfig = z.infer<typeof addonConfigSchema>;

export const addonConfigListSchema = z.object({ addons: z.array(addonConfigSchema) });
export type AddonConfigList = z.infer<typeof addonConfigListSchema>;

/** Notification that addon configurations changed; receivers fetch the list again. */
export const addonsChangedSchema = z.object({ addonId: z.number().int().min(1) });
export type AddonsChanged = z.infer<typeof addonsChangedSchema>;

export const addonDeliveriesRequestSchema = integrationEventsQuerySchema.extend({ addonId: z.number().int().min(1) });
export type AddonDeliveriesRequest = z.infer<typeof addonDeliveriesRequestSchema>;

export const addonTopics = {
  /** admin answers: every addon configuration, parameters in clear. */
  addonsList: request("addons.list", z.object({}).passthrough(), addonConfigListSchema),
  /** admin announces after each committed addon change. */
  addonsChanged: notice("addons.changed", addonsChangedSchema),
  /** addon-delivery answers: the delivery log of one addon, newest first. */
  addonDeliveries: request("addons.deliveries", addonDeliveriesRequestSchema, integrationEventsSchema),
} as const;
