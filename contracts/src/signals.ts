import { z } from "zod";
import { c, errorResponses, routerOptions } from "./common.js";

/**
 * `/api/signal-endpoint/:name`: external systems post signals with `Authorization: Bearer <token>`.
 * The spec shows neither the response nor the error statuses; the signal is accepted for
 * asynchronous handling (202, no body), and the errors are those of a token-guarded, size- and
 * rate-limited JSON endpoint.
 */
export const signalsContract = c.router(
  {
    receive: {
      method: "POST",
      path: "/:name",
      summary: "Send a signal to a signal endpoint",
      contentType: "application/json",
      // Any JSON, or nothing at all.
      body: z.unknown().optional(),
      responses: { 202: c.noBody(), ...errorResponses(400, 401, 404, 413, 415, 429) },
    },
  },
  { ...routerOptions, pathPrefix: "/api/signal-endpoint" },
);
export type SignalsContract = typeof signalsContract;
