import { c, errorResponses, routerOptions } from "./common.js";
import { signalBodySchema } from "./schemas/index.js";

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
      body: signalBodySchema,
      responses: { 202: c.noBody(), ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
    },
  },
  { ...routerOptions, pathPrefix: "/api/signal-endpoint" },
);
export type SignalsContract = typeof signalsContract;
