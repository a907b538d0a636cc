import { c, errorResponses, locationHeader, routerOptions } from "../common.js";
import { strategyDefinitionSchema, strategyListSchema, upsertStrategyDefinitionSchema } from "../schemas/index.js";

export const strategiesContract = c.router(
  {
    list: {
      method: "GET",
      path: "/strategies",
      summary: "List strategy definitions",
      responses: { 200: strategyListSchema, ...errorResponses(401) },
    },
    get: {
      method: "GET",
      path: "/strategies/:name",
      summary: "Get a strategy definition",
      responses: { 200: strategyDefinitionSchema, ...errorResponses(401, 404) },
    },
    create: {
      method: "POST",
      path: "/strategies",
      summary: "Define a custom strategy",
      body: upsertStrategyDefinitionSchema,
      metadata: locationHeader,
      responses: { 201: strategyDefinitionSchema, ...errorResponses(400, 401, 403, 409, 415) },
    },
    // Built-in strategies cannot be changed (400).
    update: {
      method: "PUT",
      path: "/strategies/:name",
      summary: "Update a custom strategy definition",
      body: upsertStrategyDefinitionSchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 415) },
    },
    deprecate: {
      method: "POST",
      path: "/strategies/:name/deprecate",
      summary: "Deprecate a custom strategy",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    reactivate: {
      method: "POST",
      path: "/strategies/:name/reactivate",
      summary: "Reactivate a deprecated custom strategy",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    // Refused for built-ins (400) and while a feature uses the strategy (409).
    delete: {
      method: "DELETE",
      path: "/strategies/:name",
      summary: "Delete an unused custom strategy",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 409) },
    },
  },
  routerOptions,
);
