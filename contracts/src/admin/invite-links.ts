import { permissions, requires } from "../route-access.js";
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
      metadata: requires(permissions.admin),
      summary: "List public signup tokens",
      description: "The public signup links (tokens) with their role, expiry, whether they are enabled and who signed up with them.",
      responses: { 200: publicSignupTokenListSchema, ...errorResponses(401, 403) },
    },
    create: {
      method: "POST",
      path: "/invite-link/tokens",
      summary: "Create a public signup token (role Viewer unless `roleId` says otherwise)",
      description:
        "Creates a signup link: whoever opens `/invite/<token>` before `expiresAt` can create an account with the token's role (Viewer unless `roleId` says otherwise).",
      body: createPublicSignupTokenSchema,
      metadata: {
        ...requires(permissions.admin),
        ...locationHeader,
        requestExample: { name: "Spring interns", expiresAt: "2027-03-31T00:00:00.000Z", roleId: 3 },
      },
      responses: { 201: publicSignupTokenSchema, ...errorResponses(400, 401, 403, 413, 415) },
    },
    get: {
      method: "GET",
      path: "/invite-link/tokens/:token",
      metadata: requires(permissions.admin),
      summary: "Read a public signup token (`:token` is its secret)",
      description: "One signup link with the users who signed up through it.",
      responses: { 200: publicSignupTokenSchema, ...errorResponses(401, 403, 404) },
    },
    update: {
      method: "PUT",
      path: "/invite-link/tokens/:token",
      summary: "Update a public signup token (`:token` is its secret)",
      description: "Moves a signup link's expiry or turns it off.",
      metadata: { ...requires(permissions.admin), requestExample: { expiresAt: "2027-06-30T00:00:00.000Z", enabled: true } },
      body: publicSignupTokenUpdateSchema,
      responses: { 200: publicSignupTokenSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
  },
  routerOptions,
);
