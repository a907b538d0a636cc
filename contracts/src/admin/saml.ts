import { permissions, requires } from "../route-access.js";
import { c, errorResponses, routerOptions } from "../common.js";
import { samlSettingsSchema } from "../schemas/index.js";

export const samlContract = c.router(
  {
    getSettings: {
      method: "GET",
      path: "/auth/saml/settings",
      metadata: requires(permissions.admin),
      summary: "Read the SAML settings",
      description: "The SAML single sign-on settings; the certificate is shown, no secret is stored.",
      responses: { 200: samlSettingsSchema, ...errorResponses(401, 403) },
    },
    updateSettings: {
      method: "POST",
      path: "/auth/saml/settings",
      summary: "Replace the SAML settings",
      description:
        "Replaces the SAML settings. When `enabled`, the identity provider's entity id, sign-on URL and certificate are required; `autoCreate` creates users on first sign-in from the listed email domains with the default root role.",
      metadata: {
        ...requires(permissions.admin),
        requestExample: {
          enabled: true,
          entityId: "https://idp.example.com/metadata",
          signOnUrl: "https://idp.example.com/sso",
          certificate: "MIIC...base64...",
          autoCreate: true,
          emailDomains: "example.com",
          defaultRootRole: "Viewer",
        },
      },
      body: samlSettingsSchema,
      responses: { 200: samlSettingsSchema, ...errorResponses(400, 401, 403, 415) },
    },
  },
  routerOptions,
);
