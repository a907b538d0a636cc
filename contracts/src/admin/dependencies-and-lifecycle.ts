import { permissions, requires } from "../route-access.js";
import { c, errorResponses, routerOptions } from "../common.js";
import { addDependencyBodySchema, dependenciesInUseSchema, completeLifecycleBodySchema, featureLifecycleSchema } from "../schemas/index.js";

const feature = "/projects/:projectId/features/:featureName";

/** How flags relate to each other and to time: parent dependencies and lifecycle stages. */
export const dependenciesAndLifecycleContract = c.router(
  {
    addDependency: {
      method: "POST",
      path: `${feature}/dependencies`,
      summary: "Make a feature depend on a parent feature (replaces its current parent)",
      description:
        "Makes the flag depend on a parent in the same project: SDKs evaluate it as off unless the parent is enabled (or disabled, with `enabled: false`) and, when `variants` are given, returns one of them. A flag has at most one parent, a parent has no parent itself.",
      metadata: {
        ...requires(permissions.updateFeatureDependency, { project: "params.projectId" }),
        requestExample: { feature: "new-checkout", enabled: true, variants: ["blue"] },
      },
      body: addDependencyBodySchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 415) },
    },
    removeDependency: {
      method: "DELETE",
      path: `${feature}/dependencies/:parent`,
      metadata: requires(permissions.updateFeatureDependency, { project: "params.projectId" }),
      summary: "Remove a parent dependency",
      description: "Removes the dependency on one parent; SDKs evaluate the flag on its own again.",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(401, 403, 404) },
    },
    removeDependencies: {
      method: "DELETE",
      path: `${feature}/dependencies`,
      metadata: requires(permissions.updateFeatureDependency, { project: "params.projectId" }),
      summary: "Remove every parent dependency of a feature",
      description: "Removes every parent dependency of the flag.",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(401, 403, 404) },
    },
    projectUsesDependencies: {
      method: "GET",
      path: "/projects/:projectId/dependencies",
      metadata: requires(permissions.read, { project: "params.projectId" }),
      summary: "Whether any feature of the project has a parent",
      description: "True when some live flag of the project has a parent (the UI shows dependency columns then).",
      responses: { 200: dependenciesInUseSchema, ...errorResponses(401, 403, 404) },
    },
    lifecycle: {
      method: "GET",
      path: `${feature}/lifecycle`,
      metadata: requires(permissions.read, { project: "params.projectId" }),
      summary: "The lifecycle stages a feature has entered, oldest first",
      description:
        "The lifecycle stages the flag went through (initial, pre-live, live, completed, archived) with when it entered each. Stages follow from events: enabled in a non-production environment, seen by SDKs in production, and so on.",
      responses: { 200: featureLifecycleSchema, ...errorResponses(401, 403, 404) },
    },
    completeLifecycle: {
      method: "POST",
      path: `${feature}/lifecycle/complete`,
      summary: "Mark a feature as completed",
      description:
        "Marks the flag's work as done, saying whether its code was `kept` (optionally which variant) or `discarded`; the flag shows as ready to be cleaned up.",
      metadata: {
        ...requires(permissions.updateFeature, { project: "params.projectId" }),
        requestExample: { status: "kept", statusValue: "blue" },
      },
      body: completeLifecycleBodySchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 415) },
    },
    uncompleteLifecycle: {
      method: "POST",
      path: `${feature}/lifecycle/uncomplete`,
      metadata: requires(permissions.updateFeature, { project: "params.projectId" }),
      summary: "Take a feature back out of the completed stage",
      description: "Takes the flag out of the completed stage, back to where its events put it.",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
  },
  routerOptions,
);
