import { c, errorResponses, routerOptions } from "./common.js";
import {
  clientMetricsSchema,
  clientRegistrationSchema,
  frontendContextBodySchema,
  frontendContextQuerySchema,
  frontendResultSchema,
} from "./schemas/index.js";

/** `/api/frontend`: the features enabled for a context. 404 everywhere when the API is disabled. */
export const frontendContract = c.router(
  {
    getFeatures: {
      method: "GET",
      path: "",
      summary: "Features enabled for a context",
      description:
        "The flags enabled for the context given in the query (`userId`, `sessionId`, `properties[tier]=gold`, ...), evaluated on the server for a frontend token's environment and projects, with their variants. Disabled flags are left out, as in Unleash's frontend API.",
      query: frontendContextQuerySchema,
      responses: { 200: frontendResultSchema, ...errorResponses(401, 403, 404) },
    },
    postFeatures: {
      method: "POST",
      path: "",
      summary: "Features enabled for a context given in the body",
      description:
        "The same evaluation with the context in the body (`{context: {...}}`), as the browser SDK sends it with `usePOSTrequests`.",
      metadata: { requestExample: { context: { userId: "alice", sessionId: "8f2a", properties: { tier: "gold" } } } },
      contentType: "application/json",
      body: frontendContextBodySchema,
      responses: { 200: frontendResultSchema, ...errorResponses(400, 401, 403, 404, 415) },
    },
    register: {
      method: "POST",
      path: "/client/register",
      summary: "A browser SDK announces itself",
      description: "A browser SDK announces itself when it starts; the application shows under the frontend token's environment.",
      metadata: {
        requestExample: {
          appName: "checkout-web",
          instanceId: "browser-8f2a",
          sdkVersion: "unleash-client-js:3.7.0",
          environment: "production",
          started: "2026-11-26T08:00:00.000Z",
          interval: 30000,
        },
      },
      contentType: "application/json",
      body: clientRegistrationSchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 415) },
    },
    metrics: {
      method: "POST",
      path: "/client/metrics",
      summary: "Usage counts from a browser SDK",
      description:
        "Evaluation counts a browser SDK reports every interval: per flag, yes and no and per variant. They add up into the usage metrics of the flag.",
      metadata: {
        requestExample: {
          appName: "checkout-web",
          instanceId: "browser-8f2a",
          bucket: {
            start: "2026-11-26T08:00:00.000Z",
            stop: "2026-11-26T08:01:00.000Z",
            toggles: { "new-checkout": { yes: 12, no: 3, variants: { blue: 7, green: 5 } } },
          },
        },
      },
      contentType: "application/json",
      body: clientMetricsSchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 415) },
    },
  },
  { ...routerOptions, pathPrefix: "/api/frontend" },
);
export type FrontendContract = typeof frontendContract;
