import { z } from "zod";
import { c, dateTimeSchema, errorResponses, routerOptions } from "./common.js";

/**
 * `/api/signal-endpoint/:name`: external systems post signals with `Authorization: Bearer <token>`.
 * The spec shows neither the response nor the error statuses; the signal is accepted for
 * asynchronous handling (202, no body), and the errors are those of a token-guarded, size- and
 * rate-limited JSON endpoint: 401 without a known token, 403 for another endpoint's token, 404 for an
 * unknown or disabled endpoint, 429 with `Retry-After` over the rate limit.
 */
export const signalsContract = c.router(
  {
    receive: {
      method: "POST",
      path: "/:name",
      summary: "Send a signal to a signal endpoint",
      description:
        "Receives a signal: any JSON payload from an external system, authorized by one of the endpoint's tokens. It is stored and matched against the action sets listening to this endpoint. Answers 202 at once; the actions run afterwards.",
      metadata: { requestExample: { alert: { name: "checkout-errors", status: "firing" }, source: "pagerduty" } },
      contentType: "application/json",
      // Any JSON, or nothing at all.
      body: z.unknown().optional(),
      responses: { 202: c.noBody(), ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
    },
  },
  { ...routerOptions, pathPrefix: "/api/signal-endpoint" },
);
export type SignalsContract = typeof signalsContract;

/**
 * What signal-ingest needs to know about the endpoints admin owns: names, on/off and the sha256
 * digests of their tokens, never a secret. Admin writes it to the cache under `cacheKey` and
 * announces each change on `changedSubject`; signal-ingest hydrates from the cache at boot, and
 * asks admin on `requestSubject` (request/reply, answered with the list) when the cache lacks it.
 */
export const sharedSignalEndpointSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  enabled: z.boolean(),
  tokens: z.array(z.object({ id: z.number().int(), name: z.string(), digest: z.string().regex(/^[0-9a-f]{64}$/) })),
});
export type SharedSignalEndpoint = z.infer<typeof sharedSignalEndpointSchema>;
export const sharedSignalEndpoints = {
  cacheKey: "signal-endpoints",
  changedSubject: "signal-endpoints.changed",
  requestSubject: "signal-endpoints.get",
  schema: z.array(sharedSignalEndpointSchema),
} as const;

/**
 * Admin's received-signals API asks signal-ingest, which owns the signals, over the bus
 * (request/reply on `signals.list`), newest first.
 */
export const listSignalsRequestSchema = z.object({
  endpointId: z.number().int(),
  limit: z.number().int().min(1).max(1000),
  offset: z.number().int().min(0),
});
export type ListSignalsRequest = z.infer<typeof listSignalsRequestSchema>;
export const receivedSignalSchema = z.object({
  id: z.number().int(),
  source: z.literal("signal-endpoint"),
  sourceId: z.number().int(),
  createdAt: dateTimeSchema,
  tokenName: z.string(),
  payload: z.unknown(),
});
export type ReceivedSignal = z.infer<typeof receivedSignalSchema>;
export const listSignalsReplySchema = z.object({ signals: z.array(receivedSignalSchema) });
export const listSignalsSubject = "signals.list";
