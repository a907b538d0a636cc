import { z } from "zod";
import { dateTimeSchema } from "../common.js";

export const userSchema = z.object({
  id: z.number().int(),
  /** @deprecated */
  isAPI: z.boolean().optional(),
  name: z.string().nullable().optional(),
  email: z.string().optional(),
  username: z.string().nullable().optional(),
  imageUrl: z.string().optional(),
  inviteLink: z.string().optional(),
  loginAttempts: z.number().int().optional(),
  emailSent: z.boolean().optional(),
  rootRole: z.number().int().optional(),
  seenAt: dateTimeSchema.nullable().optional(),
  createdAt: dateTimeSchema.optional(),
  /** "User" or "Service Account" */
  accountType: z.string().optional(),
  /** @deprecated */
  permissions: z.array(z.string()).optional(),
  scimId: z.string().nullable().optional(),
});
export type User = z.infer<typeof userSchema>;

export const roleSchema = z.object({
  id: z.number().int(),
  type: z.string(),
  name: z.string(),
  description: z.string().optional(),
  project: z.string().nullable().optional(),
});
export type Role = z.infer<typeof roleSchema>;

/** `enabled` reads false once the token has expired. */
export const publicSignupTokenSchema = z.object({
  secret: z.string(),
  url: z.string().nullable(),
  name: z.string(),
  enabled: z.boolean(),
  expiresAt: dateTimeSchema,
  createdAt: dateTimeSchema,
  createdBy: z.string().nullable(),
  users: z.array(userSchema).nullable().optional(),
  role: roleSchema,
});
export type PublicSignupToken = z.infer<typeof publicSignupTokenSchema>;

export const publicSignupTokenListSchema = z.object({ tokens: z.array(publicSignupTokenSchema) });
export type PublicSignupTokenList = z.infer<typeof publicSignupTokenListSchema>;

/** PUT /api/admin/invite-link/tokens/:token body: both fields optional, the body itself required. */
/** Strict, as Unleash refuses an update with any other property (400). */
export const publicSignupTokenUpdateSchema = z
  .object({
    expiresAt: dateTimeSchema.optional(),
    enabled: z.boolean().optional(),
  })
  .strict();
export type PublicSignupTokenUpdate = z.infer<typeof publicSignupTokenUpdateSchema>;

/** Create body, as Unleash takes it; the role defaults to Viewer (3). */
export const createPublicSignupTokenSchema = z.object({
  name: z.string().trim().min(1, "Must not be empty").max(255),
  expiresAt: dateTimeSchema,
  roleId: z.number().int().positive().optional(),
});
export type CreatePublicSignupToken = z.infer<typeof createPublicSignupTokenSchema>;
