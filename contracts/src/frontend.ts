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
      query: frontendContextQuerySchema,
      responses: { 200: frontendResultSchema, ...errorResponses(401, 403, 404) },
    },
    postFeatures: {
      method: "POST",
      path: "",
      summary: "Features enabled for a context given in the body",
      contentType: "application/json",
      body: frontendContextBodySchema,
      responses: { 200: frontendResultSchema, ...errorResponses(400, 401, 403, 404, 415) },
    },
    register: {
      method: "POST",
      path: "/client/register",
      summary: "A browser SDK announces itself",
      contentType: "application/json",
      body: clientRegistrationSchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 415) },
    },
    metrics: {
      method: "POST",
      path: "/client/metrics",
      summary: "Usage counts from a browser SDK",
      contentType: "application/json",
      body: clientMetricsSchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 415) },
    },
  },
  { ...routerOptions, pathPrefix: "/api/frontend" },
);
export type FrontendContract = typeof frontendContract;
