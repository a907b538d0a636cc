import { z } from "zod";

const requiredWhenEnabled = ["entityId", "signOnUrl", "certificate"] as const;

export const samlSettingsSchema = z
  .object({
    enabled: z.boolean().optional(),
    entityId: z.string().optional(),
    signOnUrl: z.string().optional(),
    certificate: z.string().optional(),
    signOutUrl: z.string().optional(),
    spCertificate: z.string().optional(),
    autoCreate: z.boolean().optional(),
    /** Comma-separated domains eligible for auto-created accounts. */
    emailDomains: z.string().optional(),
    defaultRootRole: z.enum(["Viewer", "Editor", "Admin"]).optional(),
    /** Takes precedence over defaultRootRole. */
    defaultRootRoleId: z.number().optional(),
    enableGroupSyncing: z.boolean().optional(),
    groupJsonPath: z.string().optional(),
  })
  .superRefine((settings, ctx) => {
    if (!settings.enabled) return;
    for (const field of requiredWhenEnabled) {
      if (!settings[field]?.trim()) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          path: [field],
          message: `${field} is required when SAML is enabled`,
        });
      }
    }
  });
export type SamlSettings = z.infer<typeof samlSettingsSchema>;

/** What the sign-in page offers (`GET /auth/options`). */
export const signInOptionsSchema = z.object({
  /** False once password sign-in is turned off (the break-glass aside). */
  passwordSignIn: z.boolean(),
  /** Enabled single sign-on providers; `path` starts the sign-in (add `?redirect=/page`). */
  providers: z.array(z.object({ type: z.enum(["saml", "oidc"]), name: z.string(), path: z.string() })),
});
export type SignInOptions = z.infer<typeof signInOptionsSchema>;
