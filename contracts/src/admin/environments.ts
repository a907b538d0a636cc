import { permissions, requires } from "../route-access.js";
import { c, errorResponses, routerOptions } from "../common.js";
import {
  createEnvironmentBodySchema,
  environmentListSchema,
  environmentSchema,
  environmentSortOrderBodySchema,
  updateEnvironmentBodySchema,
} from "../schemas/index.js";

export const environmentsContract = c.router(
  {
    list: {
      method: "GET",
      path: "/environments",
      metadata: requires(permissions.read),
      summary: "List environments",
      description: "Every environment with its type, sort order, whether it is enabled and whether it is protected.",
      responses: { 200: environmentListSchema, ...errorResponses(401, 403) },
    },
    get: {
      method: "GET",
      path: "/environments/:name",
      metadata: requires(permissions.read),
      summary: "Get an environment",
      description: "One environment.",
      responses: { 200: environmentSchema, ...errorResponses(401, 403, 404) },
    },
    listForProject: {
      method: "GET",
      path: "/environments/project/:projectId",
      metadata: requires(permissions.read, { project: "params.projectId" }),
      summary: "List the environments of a project",
      description: "The environments enabled in a project, with the project's default strategy for each.",
      responses: { 200: environmentListSchema, ...errorResponses(401, 403, 404) },
    },
    create: {
      method: "POST",
      path: "/environments",
      summary: "Create an environment",
      description:
        "Creates an environment. Its `type` (development, test, preproduction, production) drives the lifecycle stages and the health report.",
      metadata: {
        ...requires(permissions.createEnvironment),
        requestExample: { name: "staging", type: "preproduction", sortOrder: 3, enabled: true },
      },
      body: createEnvironmentBodySchema,
      responses: { 201: environmentSchema, ...errorResponses(400, 401, 403, 409, 413, 415) },
    },
    update: {
      method: "PUT",
      path: "/environments/update/:name",
      summary: "Change an environment's type or sort order",
      description: "Changes an environment's type or sort order; its name cannot change.",
      metadata: {
        ...requires(permissions.updateEnvironment, { environment: "params.name" }),
        requestExample: { type: "production", sortOrder: 4 },
      },
      body: updateEnvironmentBodySchema,
      responses: { 200: environmentSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    sortOrder: {
      method: "PUT",
      path: "/environments/sort-order",
      summary: "Set the sort order of environments",
      description: "Sets the sort order of several environments at once: a map from name to position.",
      metadata: { ...requires(permissions.updateEnvironment), requestExample: { development: 1, staging: 2, production: 3 } },
      body: environmentSortOrderBodySchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    delete: {
      method: "DELETE",
      path: "/environments/:name",
      metadata: requires(permissions.deleteEnvironment, { environment: "params.name" }),
      summary: "Delete an environment no project has enabled",
      description: "Deletes an environment that no project has enabled; protected environments cannot be deleted.",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 409) },
    },
    enable: {
      method: "POST",
      path: "/environments/:name/on",
      metadata: requires(permissions.updateEnvironment, { environment: "params.name" }),
      summary: "Enable an environment",
      description: "Enables an environment: SDKs of it get flags again.",
      body: c.noBody(),
      responses: { 204: c.noBody(), ...errorResponses(401, 403, 404) },
    },
    disable: {
      method: "POST",
      path: "/environments/:name/off",
      metadata: requires(permissions.updateEnvironment, { environment: "params.name" }),
      summary: "Disable an environment",
      description:
        "Disables an environment: projects created from now on do not get it. Flags already in it keep their configuration, and SDK tokens for it keep working.",
      body: c.noBody(),
      responses: { 204: c.noBody(), ...errorResponses(401, 403, 404) },
    },
  },
  routerOptions,
);
