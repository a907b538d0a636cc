import { z } from "zod";
import { dateTimeSchema, jsonObjectSchema } from "../common.js";

/** Providers every installation knows; others may be registered, so the field stays a string. */
export const defaultAddonProviders = ["datadog", "slack", "teams", "webhook"] as const;

/** What a sensitive parameter reads as in every response; sent back unchanged, it keeps the stored value. */
export const maskedParameterValue = "*****";

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
  createdAt: dateTimeSchema.optional(),
});
export type Addon = z.infer<typeof addonSchema>;

export const addonIdParamsSchema = z.object({
  id: z.coerce.number().int().positive(),
});

export const addonParameterDefinitionSchema = z.object({
  name: z.string(),
  displayName: z.string(),
  /** `url`, `text` or `textfield` (multi-line), as the Unleash UI renders them. */
  type: z.string(),
  required: z.boolean(),
  sensitive: z.boolean(),
  description: z.string().optional(),
  placeholder: z.string().optional(),
});
export type AddonParameterDefinition = z.infer<typeof addonParameterDefinitionSchema>;

export const addonTagTypeSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  icon: z.string().optional(),
});

export const addonProviderDefinitionSchema = z.object({
  name: z.string(),
  displayName: z.string(),
  description: z.string(),
  documentationUrl: z.string(),
  howTo: z.string().optional(),
  deprecated: z.string().optional(),
  parameters: z.array(addonParameterDefinitionSchema),
  /** Event types the provider knows how to present. */
  events: z.array(z.string()),
  /** Tag types the provider reads from flags (slack channels, datadog tags). */
  tagTypes: z.array(addonTagTypeSchema).optional(),
});
export type AddonProviderDefinition = z.infer<typeof addonProviderDefinitionSchema>;

export const addonListSchema = z.object({
  addons: z.array(addonSchema),
  providers: z.array(addonProviderDefinitionSchema),
});
export type AddonList = z.infer<typeof addonListSchema>;

/** `success`/`failed` are final; `retrying` is an attempt that failed with attempts left. */
export const integrationEventStateSchema = z.enum(["success", "failed", "retrying"]);
export type IntegrationEventState = z.infer<typeof integrationEventStateSchema>;

/** One delivery attempt of one event to one addon, newest first in the log (Unleash's integration event). */
export const integrationEventSchema = z.object({
  id: z.string(),
  integrationId: z.number().int(),
  createdAt: dateTimeSchema,
  state: integrationEventStateSchema,
  stateDetails: z.string(),
  /** The domain event that was delivered. */
  event: jsonObjectSchema,
  details: z.object({
    eventId: z.string(),
    eventType: z.string(),
    /** HTTP status the target answered; null when no answer came (timeout, refused, unreachable). */
    statusCode: z.number().int().nullable(),
    attempt: z.number().int().min(1),
    /** Sent as the `Idempotency-Key` header: the same for every attempt of one (event, addon). */
    idempotencyKey: z.string(),
  }),
});
export type IntegrationEvent = z.infer<typeof integrationEventSchema>;

export const integrationEventsSchema = z.object({
  integrationEvents: z.array(integrationEventSchema),
});
export type IntegrationEvents = z.infer<typeof integrationEventsSchema>;

export const integrationEventsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});
export type IntegrationEventsQuery = z.infer<typeof integrationEventsQuerySchema>;
