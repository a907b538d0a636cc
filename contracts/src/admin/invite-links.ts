import { c, errorResponses, locationHeader, routerOptions } from "../common.js";
import {
  createPublicSignupTokenSchema,
  publicSignupTokenListSchema,
  publicSignupTokenSchema,
  publicSignupTokenUpdateSchema,
} from "../schemas/index.js";

export const inviteLinksContract = c.router(
  {
    list: {
      method: "GET",
      path: "/invite-link/tokens",
      summary: "List public signup tokens",
      responses: { 200: publicSignupTokenListSchema, ...errorResponses(401, 403) },
    },
    create: {
      method: "POST",
      path: "/invite-link/tokens",
      summary: "Create a public signup token (role Viewer unless `roleId` says otherwise)",
      body: createPublicSignupTokenSchema,
      metadata: locationHeader,
      responses: { 201: publicSignupTokenSchema, ...errorResponses(400, 401, 403, 413, 415) },
    },
    get: {
      method: "GET",
      path: "/invite-link/tokens/:token",
      summary: "Read a public signup token (`:token` is its secret)",
      responses: { 200: publicSignupTokenSchema, ...errorResponses(401, 403, 404) },
    },
    update: {
      method: "PUT",
      path: "/invite-link/tokens/:token",
      summary: "Update a public signup token (`:token` is its secret)",
      body: publicSignupTokenUpdateSchema,
      responses: { 200: publicSignupTokenSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
  },
  routerOptions,
);
