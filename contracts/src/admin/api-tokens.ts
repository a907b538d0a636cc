import { permissions, requires } from "../route-access.js";
import { c, errorResponses, routerOptions } from "../common.js";
import { apiTokenListSchema, apiTokenSchema, createApiTokenSchema, updateApiTokenSchema } from "../schemas/index.js";

export const apiTokensContract = c.router(
  {
    list: {
      method: "GET",
      path: "/api-tokens",
      metadata: requires(permissions.readApiToken),
      summary: "List API tokens",
      description:
        "Every API token (admin, client, frontend) with its environment, projects and expiry. Secrets are shown as Unleash shows them.",
      responses: { 200: apiTokenListSchema, ...errorResponses(401, 403) },
    },
    create: {
      method: "POST",
      path: "/api-tokens",
      summary: "Create an API token; the answer shows its secret",
      description:
        "Creates a token. `client` and `frontend` tokens are bound to one environment and to projects (`*` for all); `admin` tokens to none. The secret in the answer is what SDKs and scripts send in `Authorization`.",
      metadata: {
        ...requires(permissions.createApiToken),
        requestExample: { tokenName: "checkout-service", type: "client", environment: "production", projects: ["default"] },
      },
      body: createApiTokenSchema,
      responses: { 201: apiTokenSchema, ...errorResponses(400, 401, 403, 413, 415) },
    },
    getByName: {
      method: "GET",
      path: "/api-tokens/:name",
      metadata: requires(permissions.readApiToken),
      summary: "List the API tokens with this name (names are not unique)",
      description: "The tokens created with this `tokenName`; several tokens may share a name.",
      responses: { 200: apiTokenListSchema, ...errorResponses(401, 403) },
    },
    update: {
      method: "PUT",
      path: "/api-tokens/:token",
      summary: "Change when an API token expires (`:token` is its secret)",
      description: "Moves a token's expiry; a token past its expiry is refused everywhere.",
      metadata: { ...requires(permissions.updateApiToken), requestExample: { expiresAt: "2027-01-31T00:00:00.000Z" } },
      body: updateApiTokenSchema,
      responses: { 200: apiTokenSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    delete: {
      method: "DELETE",
      path: "/api-tokens/:token",
      metadata: requires(permissions.deleteApiToken),
      summary: "Revoke an API token (`:token` is its secret); every surface refuses it within a second",
      description:
        "Revokes a token: the gateway, frontend-eval and open SDK streams refuse it within a second, in every process of a cluster.",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(401, 403) },
    },
  },
  routerOptions,
);
