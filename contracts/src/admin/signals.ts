import { z } from "zod";
import { permissions, requires } from "../route-access.js";
import { c, errorResponses, routerOptions } from "../common.js";
import {
  createSignalEndpointSchema,
  pageQuerySchema,
  signalEndpointListSchema,
  signalEndpointSchema,
  signalEndpointTokenBodySchema,
  signalEndpointTokenListSchema,
  signalEndpointTokenWithSecretSchema,
  signalListSchema,
  updateSignalEndpointSchema,
} from "../schemas/index.js";

/**
 * Signal endpoints (Unleash Enterprise, beta): named inboxes external systems post signals to, each
 * with its own tokens so every source can be told apart, and the signals they received.
 */

const idParam = z.coerce.number().int().positive();
const endpointIdParams = z.object({ id: idParam });
const tokenParams = z.object({ signalEndpointId: idParam, id: idParam });

export const signalEndpointsContract = c.router(
  {
    list: {
      method: "GET",
      path: "/signal-endpoints",
      metadata: requires(permissions.admin),
      summary: "List signal endpoints with their tokens (no secrets)",
      description: "Every signal endpoint with its description, whether it is enabled, and its tokens by name; secrets are never listed.",
      responses: { 200: signalEndpointListSchema, ...errorResponses(401, 403) },
    },
    create: {
      method: "POST",
      path: "/signal-endpoints",
      summary: "Create a signal endpoint",
      description:
        "Creates a signal endpoint: external systems POST JSON to `/api/signal-endpoint/<name>` with one of its tokens, and action sets react to what they send.",
      metadata: {
        ...requires(permissions.admin),
        requestExample: { name: "pagerduty-alerts", description: "Alerts from PagerDuty", enabled: true },
      },
      body: createSignalEndpointSchema,
      responses: { 201: signalEndpointSchema, ...errorResponses(400, 401, 403, 409, 413, 415) },
    },
    update: {
      method: "PUT",
      path: "/signal-endpoints/:id",
      summary: "Update a signal endpoint",
      description: "Renames a signal endpoint, changes its description or turns it on or off.",
      metadata: { ...requires(permissions.admin), requestExample: { description: "Alerts from PagerDuty and Grafana", enabled: true } },
      pathParams: endpointIdParams,
      body: updateSignalEndpointSchema,
      responses: { 200: signalEndpointSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
    },
    delete: {
      method: "DELETE",
      path: "/signal-endpoints/:id",
      metadata: requires(permissions.admin),
      summary: "Delete a signal endpoint and its tokens",
      description: "Deletes a signal endpoint with its tokens and received signals.",
      pathParams: endpointIdParams,
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    enable: {
      method: "POST",
      path: "/signal-endpoints/:id/on",
      metadata: requires(permissions.admin),
      summary: "Enable a signal endpoint",
      description: "Turns a signal endpoint on: it accepts signals again.",
      pathParams: endpointIdParams,
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    disable: {
      method: "POST",
      path: "/signal-endpoints/:id/off",
      metadata: requires(permissions.admin),
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
      metadata: requires(permissions.admin),
      summary: "List a signal endpoint's tokens (no secrets)",
      description: "The endpoint's tokens by name and creation date; secrets are only shown when created.",
      pathParams: endpointIdParams,
      responses: {
        200: signalEndpointTokenListSchema,
        ...errorResponses(400, 401, 403, 404),
      },
    },
    createToken: {
      method: "POST",
      path: "/signal-endpoints/:id/tokens",
      summary: "Create a token for a signal endpoint; the secret is shown once",
      description:
        "Creates a token for the endpoint; the answer is the only time its secret is shown. Senders pass it as `Authorization: Bearer <secret>`.",
      metadata: { ...requires(permissions.admin), requestExample: { name: "pagerduty" } },
      pathParams: endpointIdParams,
      body: signalEndpointTokenBodySchema,
      responses: { 201: signalEndpointTokenWithSecretSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
    },
    updateToken: {
      method: "PUT",
      path: "/signal-endpoints/:signalEndpointId/tokens/:id",
      summary: "Rename a signal endpoint token",
      description: "Renames a token of the endpoint.",
      metadata: { ...requires(permissions.admin), requestExample: { name: "pagerduty-eu" } },
      pathParams: tokenParams,
      body: signalEndpointTokenBodySchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    deleteToken: {
      method: "DELETE",
      path: "/signal-endpoints/:signalEndpointId/tokens/:id",
      metadata: requires(permissions.admin),
      summary: "Delete a signal endpoint token",
      description: "Deletes a token: signals sent with it are refused from then on.",
      pathParams: tokenParams,
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    listSignals: {
      method: "GET",
      path: "/signal-endpoints/:id/signals",
      metadata: requires(permissions.admin),
      summary: "Signals received by a signal endpoint, newest first",
      description: "The signals the endpoint received (payload, source IP, token name), newest first.",
      pathParams: endpointIdParams,
      query: pageQuerySchema,
      responses: {
        200: signalListSchema,
        ...errorResponses(400, 401, 403, 404),
      },
    },
  },
  routerOptions,
);
