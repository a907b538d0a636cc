import { permissions, requires } from "../route-access.js";
import { c, errorResponses, locationHeader, routerOptions } from "../common.js";
import { strategyDefinitionSchema, strategyListSchema, upsertStrategyDefinitionSchema } from "../schemas/index.js";

export const strategiesContract = c.router(
  {
    list: {
      method: "GET",
      path: "/strategies",
      metadata: requires(permissions.read),
      summary: "List strategy definitions",
      description:
        "The strategy definitions: the built-in ones (default, flexibleRollout, userWithId, remoteAddress, applicationHostname and the older gradual rollouts) and custom ones with their parameters.",
      responses: { 200: strategyListSchema, ...errorResponses(401) },
    },
    get: {
      method: "GET",
      path: "/strategies/:name",
      metadata: requires(permissions.read),
      summary: "Get a strategy definition",
      description: "One strategy definition with its parameters.",
      responses: { 200: strategyDefinitionSchema, ...errorResponses(401, 404) },
    },
    create: {
      method: "POST",
      path: "/strategies",
      summary: "Define a custom strategy",
      description:
        "Defines a custom strategy type and its parameters; SDKs evaluate it with the strategy implementation the application registers under this name.",
      body: upsertStrategyDefinitionSchema,
      metadata: {
        ...requires(permissions.createStrategy),
        ...locationHeader,
        requestExample: {
          name: "tenantRollout",
          description: "Rollout by tenant id",
          parameters: [{ name: "tenants", type: "list", description: "Tenant ids", required: true }],
        },
      },
      responses: { 201: strategyDefinitionSchema, ...errorResponses(400, 401, 403, 409, 415) },
    },
    // Built-in strategies cannot be changed (400).
    update: {
      method: "PUT",
      path: "/strategies/:name",
      summary: "Update a custom strategy definition",
      description: "Replaces a custom strategy's description and parameters; built-in strategies cannot be changed.",
      metadata: {
        ...requires(permissions.updateStrategy),
        requestExample: {
          name: "tenantRollout",
          description: "Rollout by tenant id or region",
          parameters: [
            { name: "tenants", type: "list", required: true },
            { name: "region", type: "string" },
          ],
        },
      },
      body: upsertStrategyDefinitionSchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 415) },
    },
    deprecate: {
      method: "POST",
      path: "/strategies/:name/deprecate",
      metadata: requires(permissions.updateStrategy),
      summary: "Deprecate a custom strategy",
      description: "Deprecates a custom strategy: existing uses keep working, new ones are discouraged.",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    reactivate: {
      method: "POST",
      path: "/strategies/:name/reactivate",
      metadata: requires(permissions.updateStrategy),
      summary: "Reactivate a deprecated custom strategy",
      description: "Takes the deprecation back.",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    // Refused for built-ins (400) and while a feature uses the strategy (409).
    delete: {
      method: "DELETE",
      path: "/strategies/:name",
      metadata: requires(permissions.deleteStrategy),
      summary: "Delete an unused custom strategy",
      description: "Deletes a custom strategy no flag uses.",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 409) },
    },
  },
  routerOptions,
);
