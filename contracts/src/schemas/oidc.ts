import { z } from "zod";

/** The ID token signature algorithms a provider may be told to use (Unleash's list). */
export const idTokenSigningAlgorithms = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"] as const;

const oidcSettingsFields = {
  enabled: z.boolean().optional(),
  /** The provider's discovery document (`.../.well-known/openid-configuration`) or its issuer URL. */
  discoverUrl: z.string().url().optional(),
  clientId: z.string().optional(),
  autoCreate: z.boolean().optional(),
  /** Comma-separated domains eligible for auto-created accounts. */
  emailDomains: z.string().optional(),
  defaultRootRole: z.enum(["Viewer", "Editor", "Admin"]).optional(),
  /** Takes precedence over defaultRootRole. */
  defaultRootRoleId: z.number().optional(),
  /** Signing out of Vexil also ends the session at the provider (RP-initiated logout). */
  enableSingleSignOut: z.boolean().optional(),
  /** Asks for the `groups` scope too, for providers that send groups only then. */
  addGroupsScope: z.boolean().optional(),
  /** Space-separated `acr_values` to ask the provider for. */
  acrValues: z.string().optional(),
  /** The algorithm the ID token must be signed with (RS256 when not set). */
  idTokenSigningAlgorithm: z.enum(idTokenSigningAlgorithms).optional(),
  enableGroupSyncing: z.boolean().optional(),
  groupJsonPath: z.string().optional(),
};

/** The OIDC settings as answered: the client secret is never answered back. */
export const oidcSettingsViewSchema = z.object(oidcSettingsFields);
export type OidcSettingsView = z.infer<typeof oidcSettingsViewSchema>;

/**
 * The OIDC settings as written. A `secret` left out keeps the stored one, so the settings can be
 * edited without typing the secret again; enabling needs the discovery URL, client id and a secret.
 */
export const oidcSettingsSchema = z.object({ ...oidcSettingsFields, secret: z.string().optional() }).superRefine((settings, ctx) => {
  if (!settings.enabled) return;
  for (const field of ["discoverUrl", "clientId"] as const) {
    if (!settings[field]?.trim())
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: [field], message: `${field} is required when OIDC is enabled` });
  }
});
export type OidcSettings = z.infer<typeof oidcSettingsSchema>;

/** Password sign-in (Unleash's "simple" auth settings). */
export const passwordAuthSettingsSchema = z.object({
  /** Password sign-in turned off: people sign in through SAML or OIDC (the break-glass aside). */
  disabled: z.boolean(),
});
export type PasswordAuthSettings = z.infer<typeof passwordAuthSettingsSchema>;
