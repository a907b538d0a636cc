import { c, errorResponses, routerOptions } from "../common.js";
import { samlSettingsSchema } from "../schemas/index.js";

export const samlContract = c.router(
  {
    getSettings: {
      method: "GET",
      path: "/auth/saml/settings",
      summary: "Read the SAML settings",
      responses: { 200: samlSettingsSchema, ...errorResponses(401, 403) },
    },
    updateSettings: {
      method: "POST",
      path: "/auth/saml/settings",
      summary: "Replace the SAML settings",
      body: samlSettingsSchema,
      responses: { 200: samlSettingsSchema, ...errorResponses(400, 401, 403, 415) },
    },
  },
  routerOptions,
);
