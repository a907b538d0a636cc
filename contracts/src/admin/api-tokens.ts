import { c, errorResponses, routerOptions } from "../common.js";
import { apiTokenListSchema, apiTokenSchema, createApiTokenSchema, updateApiTokenSchema } from "../schemas/index.js";

export const apiTokensContract = c.router(
  {
    list: {
      method: "GET",
      path: "/api-tokens",
      summary: "List API tokens",
      responses: { 200: apiTokenListSchema, ...errorResponses(401, 403) },
    },
    create: {
      method: "POST",
      path: "/api-tokens",
      summary: "Create an API token; the answer shows its secret",
      body: createApiTokenSchema,
      responses: { 201: apiTokenSchema, ...errorResponses(400, 401, 403, 413, 415) },
    },
    getByName: {
      method: "GET",
      path: "/api-tokens/:name",
      summary: "List the API tokens with this name (names are not unique)",
      responses: { 200: apiTokenListSchema, ...errorResponses(401, 403) },
    },
    update: {
      method: "PUT",
      path: "/api-tokens/:token",
      summary: "Change when an API token expires (`:token` is its secret)",
      body: updateApiTokenSchema,
      responses: { 200: apiTokenSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    delete: {
      method: "DELETE",
      path: "/api-tokens/:token",
      summary: "Revoke an API token (`:token` is its secret); every surface refuses it within a second",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(401, 403) },
    },
  },
  routerOptions,
);
