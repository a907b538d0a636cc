import { c, errorResponses, routerOptions } from "../common.js";
import {
  cloneFeatureBodySchema,
  enableFeatureQuerySchema,
  featureSchema,
  featureVariantsResponseSchema,
  jsonPatchSchema,
  setEnvironmentVariantsBodySchema,
} from "../schemas/index.js";

const feature = "/projects/:projectId/features/:featureName";

export const featuresContract = c.router(
  {
    patch: {
      method: "PATCH",
      path: feature,
      summary: "Apply a JSON patch to a feature",
      body: jsonPatchSchema,
      responses: { 200: featureSchema, ...errorResponses(401, 403, 404, 415) },
    },
    enableInEnvironment: {
      method: "POST",
      path: `${feature}/environments/:environment/on`,
      summary: "Enable a feature in an environment",
      body: c.noBody(),
      query: enableFeatureQuerySchema,
      responses: { 200: featureSchema, ...errorResponses(400, 401, 403, 404) },
    },
    setEnvironmentVariants: {
      method: "PUT",
      path: `${feature}/environments/:environment/variants`,
      summary: "Replace the variants of a feature in an environment",
      body: setEnvironmentVariantsBodySchema,
      responses: { 200: featureVariantsResponseSchema, ...errorResponses(400, 401, 403) },
    },
    // Unleash documents 200 for clone but its handler answers 201, which is what clients observe.
    clone: {
      method: "POST",
      path: `${feature}/clone`,
      summary: "Copy a feature under a new name",
      body: cloneFeatureBodySchema,
      responses: { 201: featureSchema, ...errorResponses(400, 401, 403, 404, 415) },
    },
  },
  routerOptions,
);
