import { z } from "zod";
import { permissions, requires, unguarded } from "../route-access.js";
import { c, errorResponses, routerOptions } from "../common.js";
import {
  changeOwnPasswordSchema,
  changePasswordSchema,
  createdPersonalAccessTokenSchema,
  createPersonalAccessTokenSchema,
  createUserSchema,
  currentUserSchema,
  personalAccessTokenListSchema,
  updateUserSchema,
  userListSchema,
  userSchema,
} from "../schemas/index.js";

const idParams = z.object({ id: z.coerce.number().int().positive() });

/** People: `/user-admin` (Admin only), the caller itself (`/user`) and its personal access tokens. */
export const usersContract = c.router(
  {
    list: {
      method: "GET",
      path: "/user-admin",
      metadata: requires(permissions.admin),
      summary: "List users and the root roles",
      description: "Every user with their root role, plus the root roles there are.",
      responses: { 200: userListSchema, ...errorResponses(401, 403) },
    },
    create: {
      method: "POST",
      path: "/user-admin",
      summary: "Create a user",
      description:
        "Creates a user with an email or a username, a root role (Viewer unless given) and optionally a password (at least 10 characters with upper and lower case, a digit and a symbol).",
      metadata: {
        ...requires(permissions.admin),
        requestExample: { name: "Alice Doe", email: "alice@example.com", rootRole: "Editor", password: "Correct-horse-9" },
      },
      body: createUserSchema,
      responses: { 201: userSchema, ...errorResponses(400, 401, 403, 409, 413, 415) },
    },
    get: {
      method: "GET",
      path: "/user-admin/:id",
      metadata: requires(permissions.admin),
      pathParams: idParams,
      summary: "Read a user",
      description: "One user with their root role and when they last signed in.",
      responses: { 200: userSchema, ...errorResponses(400, 401, 403, 404) },
    },
    update: {
      method: "PUT",
      path: "/user-admin/:id",
      pathParams: idParams,
      summary: "Change a user's name, email or root role",
      description: "Changes a user's name, email or root role.",
      metadata: { ...requires(permissions.admin), requestExample: { name: "Alice Doe", rootRole: 1 } },
      body: updateUserSchema,
      responses: { 200: userSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
    },
    delete: {
      method: "DELETE",
      path: "/user-admin/:id",
      metadata: requires(permissions.admin),
      pathParams: idParams,
      summary: "Delete a user, with their sessions and personal access tokens",
      description: "Deletes a user with their sessions and personal access tokens; requests with those are refused from then on.",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    changePassword: {
      method: "POST",
      path: "/user-admin/:id/change-password",
      pathParams: idParams,
      summary: "Set a user's password",
      description: "Sets a user's password and signs their other sessions out.",
      metadata: { ...requires(permissions.admin), requestExample: { password: "Another-horse-42" } },
      body: changePasswordSchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    current: {
      method: "GET",
      path: "/user",
      metadata: unguarded("any caller may ask who it is; the answer depends on what signed in"),
      summary: "The caller and its permissions",
      description: "Who the caller is (a user, a service account or an API token) and the permissions they have.",
      responses: { 200: currentUserSchema, ...errorResponses(401) },
    },
    changeOwnPassword: {
      method: "POST",
      path: "/user/change-password",
      summary: "Change your own password",
      description:
        "Any signed-in user changes their own password: the current one (`oldPassword`, 401 `PasswordMismatch` when wrong) and the new one twice. The session that made the change stays signed in; every other session of the user ends.",
      metadata: {
        ...unguarded("only a signed-in person has a password and personal tokens: the handler checks who signed in, then READ"),
        requestExample: { oldPassword: "Correct-horse-9", password: "Another-horse-42", confirmPassword: "Another-horse-42" },
      },
      body: changeOwnPasswordSchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    listTokens: {
      method: "GET",
      path: "/user/tokens",
      metadata: unguarded("only a signed-in person has a password and personal tokens: the handler checks who signed in, then READ"),
      summary: "The caller's personal access tokens (never their secrets)",
      description: "The signed-in user's personal access tokens, with their description and expiry.",
      responses: { 200: personalAccessTokenListSchema, ...errorResponses(401, 403) },
    },
    createToken: {
      method: "POST",
      path: "/user/tokens",
      summary: "Create a personal access token; the answer is the only time its secret is shown",
      description:
        "Creates a personal access token that acts as the user (with their permissions) until `expiresAt`; its secret is shown only in this answer.",
      metadata: {
        ...unguarded("only a signed-in person has a password and personal tokens: the handler checks who signed in, then READ"),
        requestExample: { description: "CI pipeline", expiresAt: "2099-12-31T00:00:00.000Z" },
      },
      body: createPersonalAccessTokenSchema,
      responses: { 201: createdPersonalAccessTokenSchema, ...errorResponses(400, 401, 403, 413, 415) },
    },
    deleteToken: {
      method: "DELETE",
      path: "/user/tokens/:id",
      metadata: unguarded("only a signed-in person has a password and personal tokens: the handler checks who signed in, then READ"),
      pathParams: idParams,
      summary: "Delete one of the caller's personal access tokens",
      description: "Deletes one of the caller's personal access tokens; requests with it are refused from then on.",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
  },
  routerOptions,
);
