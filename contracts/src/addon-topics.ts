import { z } from "zod";
import type { Topic } from "./events.js";
import { jsonObjectSchema } from "./common.js";
import { integrationEventsQuerySchema, integrationEventsSchema } from "./schemas/index.js";

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

/** A request/reply subject: the request payload schema and the reply schema. */
export interface RequestTopic<Req, Res> {
  subject: string;
  request: z.ZodType<Req, z.ZodTypeDef, unknown>;
  reply: z.ZodType<Res, z.ZodTypeDef, unknown>;
}

export const addonTopics = {
  /** admin answers: every addon configuration, parameters in clear. */
  list: {
    subject: "addons.list",
    request: z.object({}).passthrough(),
    reply: addonConfigListSchema,
  } satisfies RequestTopic<object, AddonConfigList>,
  /** admin announces after each committed addon change. */
  changed: { subject: "addons.changed", schema: addonsChangedSchema } satisfies Topic<AddonsChanged>,
  /** addon-delivery answers: the delivery log of one addon, newest first. */
  deliveries: {
    subject: "addons.deliveries",
    request: addonDeliveriesRequestSchema,
    reply: integrationEventsSchema,
  } satisfies RequestTopic<AddonDeliveriesRequest, z.infer<typeof integrationEventsSchema>>,
} as const;
