import { z } from "zod";
import { dateTimeSchema } from "../common.js";

/** What an external system posts to a signal endpoint: any JSON, or nothing at all. */
export const signalBodySchema = z.unknown().optional();

/** A signal as stored by signal-ingest and shown by the admin API. */
export const receivedSignalSchema = z.object({
  id: z.number().int(),
  source: z.literal("signal-endpoint"),
  sourceId: z.number().int(),
  createdAt: dateTimeSchema,
  tokenName: z.string(),
  payload: z.unknown(),
});
export type ReceivedSignal = z.infer<typeof receivedSignalSchema>;

/** Endpoint names appear in `/api/signal-endpoint/<name>`: URL-safe characters only. */
export const signalEndpointNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[a-zA-Z0-9_~.-]+$/, "Must be URL-safe: letters, digits, '-', '_', '.', '~'");

export const signalEndpointTokenSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  signalEndpointId: z.number().int(),
  createdAt: dateTimeSchema,
  createdByUserId: z.number().int(),
});
export type SignalEndpointToken = z.infer<typeof signalEndpointTokenSchema>;
export const signalEndpointTokenListSchema = z.object({ signalEndpointTokens: z.array(signalEndpointTokenSchema) });

/** The create response: the only time the secret is shown. */
export const signalEndpointTokenWithSecretSchema = signalEndpointTokenSchema.extend({ token: z.string() });

export const signalEndpointSchema = z.object({
  id: z.number().int(),
  enabled: z.boolean(),
  name: z.string(),
  description: z.string().nullable(),
  createdAt: dateTimeSchema,
  createdByUserId: z.number().int(),
  tokens: z.array(signalEndpointTokenSchema),
});
export type SignalEndpoint = z.infer<typeof signalEndpointSchema>;
export const signalEndpointListSchema = z.object({ signalEndpoints: z.array(signalEndpointSchema) });

export const createSignalEndpointSchema = z
  .object({
    name: signalEndpointNameSchema,
    description: z.string().max(1000).nullable().optional(),
    enabled: z.boolean().default(true),
  })
  .strict();
export type CreateSignalEndpoint = z.infer<typeof createSignalEndpointSchema>;

export const updateSignalEndpointSchema = z
  .object({
    name: signalEndpointNameSchema.optional(),
    description: z.string().max(1000).nullable().optional(),
    enabled: z.boolean().optional(),
  })
  .strict();
export type UpdateSignalEndpoint = z.infer<typeof updateSignalEndpointSchema>;

export const signalEndpointTokenBodySchema = z.object({ name: z.string().trim().min(1).max(100) }).strict();

/** A received signal, as signal-ingest stores it; `tokenName` names its source. */
export const signalSchema = receivedSignalSchema;
export type Signal = z.infer<typeof signalSchema>;
export const signalListSchema = z.object({ signalEndpointSignals: z.array(signalSchema) });

/** A page of a newest-first list (received signals, action set runs). */
export const pageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});
export type PageQuery = z.infer<typeof pageQuerySchema>;
