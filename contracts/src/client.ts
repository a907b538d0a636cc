import { z } from "zod";
import { c, errorResponses, routerOptions } from "./common.js";
import {
  clientDeltaResponseSchema,
  clientFeatureSchema,
  clientFeaturesQuerySchema,
  clientFeaturesResponseSchema,
  clientMetricsSchema,
  clientRegistrationSchema,
} from "./schemas/index.js";

/** Header by which an SDK says which client specification it implements (segments inlined below 4.2.0). */
export const clientSpecHeader = "unleash-client-spec";

const specHeaders = z.object({ [clientSpecHeader]: z.string().optional() });

/**
 * `/api/client/*`: what the server SDKs fetch, with a client token. The feature list answers 304
 * when `If-None-Match` carries its current ETag; the streaming route is a server-sent event
 * stream (`unleash-connected` with a hydration, then `unleash-updated`), described here for the
 * documentation only.
 */
export const clientContract = c.router(
  {
    getFeatures: {
      method: "GET",
      path: "/features",
      summary: "Every feature of the token's environment and projects, as the SDKs evaluate them",
      query: clientFeaturesQuerySchema,
      headers: specHeaders,
      responses: { 200: clientFeaturesResponseSchema, 304: c.noBody(), ...errorResponses(400, 401, 403) },
    },
    getFeature: {
      method: "GET",
      path: "/features/:featureName",
      summary: "One feature, as in the list",
      headers: specHeaders,
      responses: { 200: clientFeatureSchema, ...errorResponses(401, 403, 404) },
    },
    getDelta: {
      method: "GET",
      path: "/delta",
      summary: "Changes since the revision in If-None-Match, or a hydration",
      query: clientFeaturesQuerySchema,
      responses: { 200: clientDeltaResponseSchema, 304: c.noBody(), ...errorResponses(400, 401, 403) },
    },
    streaming: {
      method: "GET",
      path: "/streaming",
      summary: "Server-sent events: unleash-connected (hydration), then unleash-updated (deltas); resumes from Last-Event-ID",
      responses: { 200: c.otherResponse({ contentType: "text/event-stream", body: z.string() }), ...errorResponses(401, 403) },
    },
    register: {
      method: "POST",
      path: "/register",
      summary: "A server SDK announces itself",
      contentType: "application/json",
      body: clientRegistrationSchema,
      responses: { 202: c.noBody(), ...errorResponses(400, 401, 403, 415) },
    },
    metrics: {
      method: "POST",
      path: "/metrics",
      summary: "Usage counts from a server SDK",
      contentType: "application/json",
      body: clientMetricsSchema,
      responses: { 202: c.noBody(), ...errorResponses(400, 401, 403, 415) },
    },
  },
  { ...routerOptions, pathPrefix: "/api/client" },
);
export type ClientContract = typeof clientContract;
