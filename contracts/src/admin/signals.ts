import { z } from "zod";
import { c, dateTimeSchema, errorResponses, routerOptions } from "../common.js";
import { receivedSignalSchema } from "../signals.js";

/**
 * Signal endpoints (Unleash Enterprise, beta): named inboxes external systems post signals to, each
 * with its own tokens so every source can be told apart, and the signals they received.
 */

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

const idParam = z.coerce.number().int().positive();
const endpointIdParams = z.object({ id: idParam });
const tokenParams = z.object({ signalEndpointId: idParam, id: idParam });

export const pageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});
export type PageQuery = z.infer<typeof pageQuerySchema>;

export const signalEndpointsContract = c.router(
  {
    list: {
      method: "GET",
      path: "/signal-endpoints",
      summary: "List signal endpoints with their tokens (no secrets)",
      description: "Every signal endpoint with its description, whether it is enabled, and its tokens by name; secrets are never listed.",
      responses: { 200: z.object({ signalEndpoints: z.array(signalEndpointSchema) }), ...errorResponses(401, 403) },
    },
    create: {
      method: "POST",
      path: "/signal-endpoints",
      summary: "Create a signal endpoint",
      description:
        "Creates a signal endpoint: external systems POST JSON to `/api/signal-endpoint/<name>` with one of its tokens, and action sets react to what they send.",
      metadata: { requestExample: { name: "pagerduty-alerts", description: "Alerts from PagerDuty", enabled: true } },
      body: createSignalEndpointSchema,
      responses: { 201: signalEndpointSchema, ...errorResponses(400, 401, 403, 409, 413, 415) },
    },
    update: {
      method: "PUT",
      path: "/signal-endpoints/:id",
      summary: "Update a signal endpoint",
      description: "Renames a signal endpoint, changes its description or turns it on or off.",
      metadata: { requestExample: { description: "Alerts from PagerDuty and Grafana", enabled: true } },
      pathParams: endpointIdParams,
      body: updateSignalEndpointSchema,
      responses: { 200: signalEndpointSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
    },
    delete: {
      method: "DELETE",
      path: "/signal-endpoints/:id",
      summary: "Delete a signal endpoint and its tokens",
      description: "Deletes a signal endpoint with its tokens and received signals.",
      pathParams: endpointIdParams,
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    enable: {
      method: "POST",
      path: "/signal-endpoints/:id/on",
      summary: "Enable a signal endpoint",
      description: "Turns a signal endpoint on: it accepts signals again.",
      pathParams: endpointIdParams,
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    disable: {
      method: "POST",
      path: "/signal-endpoints/:id/off",
      summary: "Disable a signal endpoint (it then answers 404)",
      description:
        "Turns a signal endpoint off: senders get 404 as if it did not exist, and its action sets see nothing until it is turned on again.",
      pathParams: endpointIdParams,
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    listTokens: {
      method: "GET",
      path: "/signal-endpoints/:id/tokens",
      summary: "List a signal endpoint's tokens (no secrets)",
      description: "The endpoint's tokens by name and creation date; secrets are only shown when created.",
      pathParams: endpointIdParams,
      responses: {
        200: z.object({ signalEndpointTokens: z.array(signalEndpointTokenSchema) }),
        ...errorResponses(400, 401, 403, 404),
      },
    },
    createToken: {
      method: "POST",
      path: "/signal-endpoints/:id/tokens",
      summary: "Create a token for a signal endpoint; the secret is shown once",
      description:
        "Creates a token for the endpoint; the answer is the only time its secret is shown. Senders pass it as `Authorization: Bearer <secret>`.",
      metadata: { requestExample: { name: "pagerduty" } },
      pathParams: endpointIdParams,
      body: signalEndpointTokenBodySchema,
      responses: { 201: signalEndpointTokenWithSecretSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
    },
    updateToken: {
      method: "PUT",
      path: "/signal-endpoints/:signalEndpointId/tokens/:id",
      summary: "Rename a signal endpoint token",
      description: "Renames a token of the endpoint.",
      metadata: { requestExample: { name: "pagerduty-eu" } },
      pathParams: tokenParams,
      body: signalEndpointTokenBodySchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    deleteToken: {
      method: "DELETE",
      path: "/signal-endpoints/:signalEndpointId/tokens/:id",
      summary: "Delete a signal endpoint token",
      description: "Deletes a token: signals sent with it are refused from then on.",
      pathParams: tokenParams,
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    listSignals: {
      method: "GET",
      path: "/signal-endpoints/:id/signals",
      summary: "Signals received by a signal endpoint, newest first",
      description: "The signals the endpoint received (payload, source IP, token name), newest first.",
      pathParams: endpointIdParams,
      query: pageQuerySchema,
      responses: {
        200: z.object({ signalEndpointSignals: z.array(signalSchema) }),
        ...errorResponses(400, 401, 403, 404),
      },
    },
  },
  routerOptions,
);
