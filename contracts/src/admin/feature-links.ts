import { z } from "zod";
import { c, errorResponses, routerOptions } from "../common.js";
import { addDependencyBodySchema, completeLifecycleBodySchema, featureLifecycleSchema } from "../schemas/index.js";

const feature = "/projects/:projectId/features/:featureName";

/** How flags relate to each other and to time: parent dependencies and lifecycle stages. */
export const featureLinksContract = c.router(
  {
    addDependency: {
      method: "POST",
      path: `${feature}/dependencies`,
      summary: "Make a feature depend on a parent feature (replaces its current parent)",
      body: addDependencyBodySchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 415) },
    },
    removeDependency: {
      method: "DELETE",
      path: `${feature}/dependencies/:parent`,
      summary: "Remove a parent dependency",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(401, 403, 404) },
    },
    removeDependencies: {
      method: "DELETE",
      path: `${feature}/dependencies`,
      summary: "Remove every parent dependency of a feature",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(401, 403, 404) },
    },
    projectUsesDependencies: {
      method: "GET",
      path: "/projects/:projectId/dependencies",
      summary: "Whether any feature of the project has a parent",
      responses: { 200: z.boolean(), ...errorResponses(401, 403, 404) },
    },
    lifecycle: {
      method: "GET",
      path: `${feature}/lifecycle`,
      summary: "The lifecycle stages a feature has entered, oldest first",
      responses: { 200: featureLifecycleSchema, ...errorResponses(401, 403, 404) },
    },
    completeLifecycle: {
      method: "POST",
      path: `${feature}/lifecycle/complete`,
      summary: "Mark a feature as completed",
      body: completeLifecycleBodySchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 415) },
    },
    uncompleteLifecycle: {
      method: "POST",
      path: `${feature}/lifecycle/uncomplete`,
      summary: "Take a feature back out of the completed stage",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
  },
  routerOptions,
);
