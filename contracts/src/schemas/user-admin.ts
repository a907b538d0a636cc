import { z } from "zod";
import { dateTimeSchema } from "../common.js";
import { roleSchema, userSchema } from "./signup-token.js";

/** Unleash's root roles by name; ids 1, 2, 3. */
export const rootRoleNames = ["Admin", "Editor", "Viewer"] as const;

/** A root role given by id (`2`) or by name (`"Editor"`), as Unleash accepts both. */
export const rootRoleRefSchema = z.union([z.number().int(), z.enum(rootRoleNames)]);

const emailSchema = z.string().trim().email("Must be an email address");
const usernameSchema = z.string().trim().min(1, "Must not be empty").max(255);

/** Unleash's password rule: at least 10 characters with upper and lower case, a digit and a symbol. */
export const passwordSchema = z
  .string()
  .min(10, "Password must be at least 10 characters long")
  .max(128, "Password must be at most 128 characters long")
  .regex(/[a-z]/, "Password must contain a lower case letter")
  .regex(/[A-Z]/, "Password must contain an upper case letter")
  .regex(/[0-9]/, "Password must contain a number")
  .regex(/[^a-zA-Z0-9]/, "Password must contain a symbol");

export const createUserSchema = z
  .object({
    name: z.string().trim().max(255).optional(),
    email: emailSchema.optional(),
    username: usernameSchema.optional(),
    rootRole: rootRoleRefSchema.default(3),
    password: passwordSchema.optional(),
    sendEmail: z.boolean().optional(),
  })
  .refine((u) => u.email || u.username, { message: "Give an email or a username", path: ["username"] });
export type CreateUser = z.infer<typeof createUserSchema>;

export const updateUserSchema = z.object({
  name: z.string().trim().max(255).optional(),
  email: emailSchema.optional(),
  rootRole: rootRoleRefSchema.optional(),
});
export type UpdateUser = z.infer<typeof updateUserSchema>;

export const changePasswordSchema = z.object({ password: passwordSchema });

/** `POST /user/change-password`: people change their own password, proving they know the current one (Unleash 8). */
export const changeOwnPasswordSchema = z
  .object({
    password: passwordSchema,
    confirmPassword: z.string(),
    oldPassword: z.string().min(1, "Give your current password"),
  })
  .refine((body) => body.password === body.confirmPassword, { message: "The passwords do not match", path: ["confirmPassword"] });
export type ChangeOwnPassword = z.infer<typeof changeOwnPasswordSchema>;

export const rootRoleSchema = roleSchema.omit({ project: true });
export const userListSchema = z.object({ users: z.array(userSchema), rootRoles: z.array(rootRoleSchema) });
export type UserList = z.infer<typeof userListSchema>;

/** `GET /api/admin/user`: who the caller is and what it may do. */
export const currentUserSchema = z.object({
  user: z.object({
    id: z.number().int().optional(),
    name: z.string().nullable().optional(),
    username: z.string().nullable().optional(),
    email: z.string().nullable().optional(),
    rootRole: z.number().int().optional(),
    accountType: z.string().optional(),
    /** For API tokens: the token's type, never its secret. */
    type: z.string().optional(),
    permissions: z.array(z.string()).optional(),
  }),
  permissions: z.array(z.object({ permission: z.string() })),
});
export type CurrentUser = z.infer<typeof currentUserSchema>;

export const createPersonalAccessTokenSchema = z.object({
  description: z.string().trim().min(1, "Must not be empty").max(255),
  expiresAt: dateTimeSchema.refine((d) => Date.parse(d) > Date.now(), "Must be in the future"),
});
export type CreatePersonalAccessToken = z.infer<typeof createPersonalAccessTokenSchema>;

export const personalAccessTokenSchema = z.object({
  id: z.number().int(),
  description: z.string(),
  expiresAt: dateTimeSchema,
  createdAt: dateTimeSchema,
  seenAt: dateTimeSchema.nullable(),
  userId: z.number().int(),
});
/** The create answer is the only place the secret is ever shown. */
export const createdPersonalAccessTokenSchema = personalAccessTokenSchema.extend({ secret: z.string() });
export const personalAccessTokenListSchema = z.object({ pats: z.array(personalAccessTokenSchema) });
export type PersonalAccessToken = z.infer<typeof personalAccessTokenSchema>;

export const loginSchema = z.object({ username: z.string().min(1), password: z.string().min(1) });

/** `POST /invite/:token/signup`. */
/** The signed-in user, and whether they signed in with the well-known first-start password. */
export const loginResponseSchema = userSchema.extend({ usesDefaultPassword: z.boolean() });

export const signupSchema = z.object({
  name: z.string().trim().max(255).optional(),
  email: emailSchema,
  username: usernameSchema.optional(),
  password: passwordSchema,
});
export type Signup = z.infer<typeof signupSchema>;
