import { z } from "zod";
import { c, errorResponses, routerOptions } from "../common.js";
import {
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
      summary: "List users and the root roles",
      responses: { 200: userListSchema, ...errorResponses(401, 403) },
    },
    create: {
      method: "POST",
      path: "/user-admin",
      summary: "Create a user",
      body: createUserSchema,
      responses: { 201: userSchema, ...errorResponses(400, 401, 403, 409, 413, 415) },
    },
    get: {
      method: "GET",
      path: "/user-admin/:id",
      pathParams: idParams,
      summary: "Read a user",
      responses: { 200: userSchema, ...errorResponses(400, 401, 403, 404) },
    },
    update: {
      method: "PUT",
      path: "/user-admin/:id",
      pathParams: idParams,
      summary: "Change a user's name, email or root role",
      body: updateUserSchema,
      responses: { 200: userSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
    },
    delete: {
      method: "DELETE",
      path: "/user-admin/:id",
      pathParams: idParams,
      summary: "Delete a user, with their sessions and personal access tokens",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    changePassword: {
      method: "POST",
      path: "/user-admin/:id/change-password",
      pathParams: idParams,
      summary: "Set a user's password",
      body: changePasswordSchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    current: {
      method: "GET",
      path: "/user",
      summary: "The caller and its permissions",
      responses: { 200: currentUserSchema, ...errorResponses(401) },
    },
    listTokens: {
      method: "GET",
      path: "/user/tokens",
      summary: "The caller's personal access tokens (never their secrets)",
      responses: { 200: personalAccessTokenListSchema, ...errorResponses(401, 403) },
    },
    createToken: {
      method: "POST",
      path: "/user/tokens",
      summary: "Create a personal access token; the answer is the only time its secret is shown",
      body: createPersonalAccessTokenSchema,
      responses: { 201: createdPersonalAccessTokenSchema, ...errorResponses(400, 401, 403, 413, 415) },
    },
    deleteToken: {
      method: "DELETE",
      path: "/user/tokens/:id",
      pathParams: idParams,
      summary: "Delete one of the caller's personal access tokens",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
  },
  routerOptions,
);
