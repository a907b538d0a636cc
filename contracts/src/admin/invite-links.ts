import { c, errorResponses, routerOptions } from "../common.js";
import {
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
    update: {
      method: "PUT",
      path: "/invite-link/tokens/:token",
      summary: "Update a public signup token (`:token` is its secret)",
      body: publicSignupTokenUpdateSchema,
      responses: { 200: publicSignupTokenSchema, ...errorResponses(400, 401, 403) },
    },
  },
  routerOptions,
);
