import { c, errorResponses, routerOptions } from "../common.js";
import { permissions, requires } from "../route-access.js";
import { oidcSettingsSchema, oidcSettingsViewSchema, passwordAuthSettingsSchema } from "../schemas/index.js";

export const oidcContract = c.router(
  {
    getSettings: {
      method: "GET",
      path: "/auth/oidc/settings",
      metadata: requires(permissions.admin),
      summary: "Read the OpenID Connect settings",
      description: "The OpenID Connect single sign-on settings, without the client secret (stored sealed, never answered back).",
      responses: { 200: oidcSettingsViewSchema, ...errorResponses(401, 403) },
    },
    updateSettings: {
      method: "POST",
      path: "/auth/oidc/settings",
      summary: "Replace the OpenID Connect settings",
      description:
        "Replaces the OpenID Connect settings. When `enabled`, the discovery URL, client id and a client secret are required; a `secret` left out keeps the stored one. `autoCreate` creates users on first sign-in from the listed email domains with the default root role. Answers the settings without the secret.",
      metadata: {
        ...requires(permissions.admin),
        requestExample: {
          enabled: true,
          discoverUrl: "https://keycloak.example.com/realms/acme/.well-known/openid-configuration",
          clientId: "vexil",
          secret: "client-secret-from-the-provider",
          autoCreate: true,
          emailDomains: "example.com",
          defaultRootRole: "Viewer",
          enableGroupSyncing: true,
          groupJsonPath: "groups",
        },
      },
      body: oidcSettingsSchema,
      responses: { 200: oidcSettingsViewSchema, ...errorResponses(400, 401, 403, 415) },
    },
  },
  routerOptions,
);

export const passwordAuthContract = c.router(
  {
    getSettings: {
      method: "GET",
      path: "/auth/simple/settings",
      metadata: requires(permissions.admin),
      summary: "Read whether password sign-in is turned off",
      description: "`disabled: true` once password sign-in is turned off in favour of SAML or OpenID Connect.",
      responses: { 200: passwordAuthSettingsSchema, ...errorResponses(401, 403) },
    },
    updateSettings: {
      method: "POST",
      path: "/auth/simple/settings",
      summary: "Turn password sign-in off or on",
      description:
        "Turns password sign-in off (`disabled: true`) or on. Turning it off is refused with 400 while neither SAML nor OpenID Connect sign-in is enabled; while it is off, the built-in admin can still sign in with a password when the server runs with `PASSWORD_SIGN_IN_BREAK_GLASS=true`. API tokens are not affected.",
      metadata: { ...requires(permissions.admin), requestExample: { disabled: true } },
      body: passwordAuthSettingsSchema,
      responses: { 200: passwordAuthSettingsSchema, ...errorResponses(400, 401, 403, 415) },
    },
  },
  routerOptions,
);
