import { z } from "zod";
import { dateTimeSchema } from "../common.js";
import { receivedSignalSchema } from "../schemas/signal.js";
import { notice, request, streamEvent } from "./topic.js";

/** A signal stored by signal-ingest, announced for the actions that react to it. */
export const signalReceivedSchema = z.object({
  endpointId: z.number().int(),
  endpointName: z.string(),
  signalId: z.number().int(),
  /** Name of the token (source) that sent the signal. */
  source: z.string(),
  payload: z.unknown(),
  createdAt: dateTimeSchema,
});
export type SignalReceived = z.infer<typeof signalReceivedSchema>;

/**
 * What signal-ingest needs to know about the endpoints admin owns: names, on/off and the sha256
 * digests of their tokens, never a secret. Admin writes it to the cache under
 * `cacheKeys.signalEndpoints` (cache-keys.ts) and announces each change; signal-ingest hydrates from the cache at
 * boot, and asks admin (request/reply, answered with the list) when the cache lacks it.
 */
export const sharedSignalEndpointSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  enabled: z.boolean(),
  tokens: z.array(z.object({ id: z.number().int(), name: z.string(), digest: z.string().regex(/^[0-9a-f]{64}$/) })),
});
export type SharedSignalEndpoint = z.infer<typeof sharedSignalEndpointSchema>;
export const sharedSignalEndpointsSchema = z.array(sharedSignalEndpointSchema);

/** A page of one endpoint's received signals, newest first. */
export const listSignalsRequestSchema = z.object({
  endpointId: z.number().int(),
  limit: z.number().int().min(1).max(1000),
  offset: z.number().int().min(0),
});
export type ListSignalsRequest = z.infer<typeof listSignalsRequestSchema>;

export const signalTopics = {
  /** signal-ingest publishes (through its outbox) each stored signal; admin's action runner consumes it. */
  signalsReceived: streamEvent("signals.received", signalReceivedSchema),
  /** admin replaced the shared endpoints: every signal-ingest instance reloads them. */
  signalEndpointsChanged: notice("signal-endpoints.changed", z.object({ count: z.number().int().nonnegative() })),
  /** admin answers (one replica of the `admin` queue group) with the shared endpoints. */
  signalEndpoints: request("signal-endpoints.get", z.object({}).passthrough(), sharedSignalEndpointsSchema),
  /** signal-ingest, which owns the received signals, answers admin's received-signals API. */
  signalsList: request("signals.list", listSignalsRequestSchema, z.object({ signals: z.array(receivedSignalSchema) })),
} as const;
