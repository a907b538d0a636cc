import { z } from "zod";
import { permissions, requires } from "../route-access.js";
import { c, errorResponses, routerOptions } from "../common.js";
import {
  createPersonalAccessTokenSchema,
  createServiceAccountSchema,
  createdPersonalAccessTokenSchema,
  personalAccessTokenListSchema,
  serviceAccountListSchema,
  serviceAccountSchema,
  updateServiceAccountSchema,
} from "../schemas/index.js";

const idParams = z.object({ id: z.coerce.number().int().positive() });
const tokenParams = idParams.extend({ tokenId: z.coerce.number().int().positive() });

/** Service accounts: users that are not people, as which actions run. */
export const serviceAccountsContract = c.router(
  {
    list: {
      method: "GET",
      path: "/service-account",
      metadata: requires(permissions.admin),
      summary: "List service accounts and the root roles they can have",
      description: "Every service account with its root role and when it was last seen, plus the root roles one can be given.",
      responses: {
        200: serviceAccountListSchema,
        ...errorResponses(401, 403),
      },
    },
    create: {
      method: "POST",
      path: "/service-account",
      summary: "Create a service account",
      description:
        "Creates a service account: a user without a password for automation, with a root role; give it tokens to call the API, or let action sets run as it.",
      metadata: { ...requires(permissions.admin), requestExample: { username: "deploy-bot", name: "Deploy bot", rootRole: "Editor" } },
      body: createServiceAccountSchema,
      responses: { 201: serviceAccountSchema, ...errorResponses(400, 401, 403, 409, 413, 415) },
    },
    update: {
      method: "PUT",
      path: "/service-account/:id",
      summary: "Update a service account's name or root role",
      description: "Renames a service account or changes its root role.",
      metadata: { ...requires(permissions.admin), requestExample: { name: "Release bot", rootRole: 2 } },
      pathParams: idParams,
      body: updateServiceAccountSchema,
      responses: { 200: serviceAccountSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    delete: {
      method: "DELETE",
      path: "/service-account/:id",
      metadata: requires(permissions.admin),
      summary: "Delete a service account (refused while an action set runs as it)",
      description: "Deletes a service account; refused while an action set runs as it.",
      pathParams: idParams,
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 409) },
    },
    listTokens: {
      method: "GET",
      path: "/service-account/:id/token",
      metadata: requires(permissions.admin),
      summary: "A service account's tokens (never their secrets)",
      description: "The tokens of a service account, with their description, expiry and when they were last used.",
      pathParams: idParams,
      responses: { 200: personalAccessTokenListSchema, ...errorResponses(400, 401, 403, 404) },
    },
    createToken: {
      method: "POST",
      path: "/service-account/:id/token",
      summary: "Create a token for a service account; the answer is the only time its secret is shown",
      description:
        "Creates a token that acts as the service account (with its root role) on the admin API until `expiresAt`; its secret is shown only in this answer.",
      metadata: {
        ...requires(permissions.admin),
        requestExample: { description: "Deploy pipeline", expiresAt: "2099-12-31T00:00:00.000Z" },
      },
      pathParams: idParams,
      body: createPersonalAccessTokenSchema,
      responses: { 201: createdPersonalAccessTokenSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    deleteToken: {
      method: "DELETE",
      path: "/service-account/:id/token/:tokenId",
      metadata: requires(permissions.admin),
      summary: "Delete a service account's token",
      description: "Deletes one token of a service account; requests with it are refused from then on.",
      pathParams: tokenParams,
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
  },
  routerOptions,
);
