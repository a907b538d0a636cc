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
      description:
        "Every flag of the token's environment and projects with its strategies, constraints, variants and dependencies, plus the segments they use, for the server SDKs to evaluate locally. Answers 304 to a matching `If-None-Match`.",
      query: clientFeaturesQuerySchema,
      headers: specHeaders,
      responses: { 200: clientFeaturesResponseSchema, 304: c.noBody(), ...errorResponses(400, 401, 403) },
    },
    getFeature: {
      method: "GET",
      path: "/features/:featureName",
      summary: "One feature, as in the list",
      description: "One flag as it appears in the list.",
      headers: specHeaders,
      responses: { 200: clientFeatureSchema, ...errorResponses(401, 403, 404) },
    },
    getDelta: {
      method: "GET",
      path: "/delta",
      summary: "Changes since the revision in If-None-Match, or a hydration",
      description: "The changes since the revision the SDK holds (`If-None-Match`), or the whole flag set to start from, as delta events.",
      query: clientFeaturesQuerySchema,
      responses: { 200: clientDeltaResponseSchema, 304: c.noBody(), ...errorResponses(400, 401, 403) },
    },
    streaming: {
      method: "GET",
      path: "/streaming",
      summary: "Server-sent events: unleash-connected (hydration), then unleash-updated (deltas); resumes from Last-Event-ID",
      description:
        "A server-sent event stream: `unleash-connected` with the whole flag set, then `unleash-updated` with each change as it is committed. A reconnect with `Last-Event-ID` resumes without a full hydration.",
      responses: { 200: c.otherResponse({ contentType: "text/event-stream", body: z.string() }), ...errorResponses(401, 403) },
    },
    register: {
      method: "POST",
      path: "/register",
      summary: "A server SDK announces itself",
      description: "A server SDK announces itself when it starts: application, instance, SDK version and the strategies it implements.",
      metadata: {
        requestExample: {
          appName: "checkout-service",
          instanceId: "checkout-7d9f",
          sdkVersion: "unleash-client-node:6.6.0",
          environment: "production",
          strategies: ["default", "flexibleRollout", "userWithId"],
          started: "2026-11-26T08:00:00.000Z",
          interval: 15000,
        },
      },
      contentType: "application/json",
      body: clientRegistrationSchema,
      responses: { 202: c.noBody(), ...errorResponses(400, 401, 403, 415) },
    },
    metrics: {
      method: "POST",
      path: "/metrics",
      summary: "Usage counts from a server SDK",
      description:
        "Evaluation counts a server SDK reports every interval: per flag, yes and no and per variant. They set the flags' last-seen time and add up into their usage metrics.",
      metadata: {
        requestExample: {
          appName: "checkout-service",
          instanceId: "checkout-7d9f",
          environment: "production",
          bucket: {
            start: "2026-11-26T08:00:00.000Z",
            stop: "2026-11-26T08:01:00.000Z",
            toggles: { "new-checkout": { yes: 120, no: 30, variants: { blue: 70, green: 50 } } },
          },
        },
      },
      contentType: "application/json",
      body: clientMetricsSchema,
      responses: { 202: c.noBody(), ...errorResponses(400, 401, 403, 415) },
    },
  },
  { ...routerOptions, pathPrefix: "/api/client" },
);
export type ClientContract = typeof clientContract;
