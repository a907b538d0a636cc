import { z } from "zod";
import { dateTimeSchema } from "../common.js";

/**
 * Service accounts (Unleash Enterprise): users that are not people. Actions run as one, so its root
 * role decides what an action may change, and the event log names it.
 */

/** Unleash's root roles: Admin 1, Editor 2, Viewer 3; given by id or by name. */
export const serviceAccountRootRoles = [
  { id: 1, name: "Admin", type: "root", description: "Users with the root admin role have superuser access to Unleash." },
  { id: 2, name: "Editor", type: "root", description: "Users with the root editor role have access to most features in Unleash." },
  { id: 3, name: "Viewer", type: "root", description: "Users with the root viewer role can only read root resources in Unleash." },
] as const;
const rootRoleRef = z.union([z.number().int(), z.enum(["Admin", "Editor", "Viewer"])]);

export const serviceAccountSchema = z.object({
  id: z.number().int(),
  name: z.string().nullable(),
  username: z.string(),
  imageUrl: z.string(),
  rootRole: z.number().int(),
  accountType: z.literal("Service Account"),
  isAPI: z.boolean(),
  createdAt: dateTimeSchema,
  seenAt: dateTimeSchema.nullable(),
});
export type ServiceAccount = z.infer<typeof serviceAccountSchema>;

export const createServiceAccountSchema = z
  .object({
    username: z.string().trim().min(1).max(255),
    name: z.string().trim().max(255).optional(),
    rootRole: rootRoleRef,
  })
  .strict();
export type CreateServiceAccount = z.infer<typeof createServiceAccountSchema>;

export const updateServiceAccountSchema = z
  .object({ name: z.string().trim().max(255).optional(), rootRole: rootRoleRef.optional() })
  .strict();
export type UpdateServiceAccount = z.infer<typeof updateServiceAccountSchema>;

const rootRoleSchema = z.object({ id: z.number().int(), name: z.string(), type: z.string(), description: z.string() });
export const serviceAccountListSchema = z.object({ serviceAccounts: z.array(serviceAccountSchema), rootRoles: z.array(rootRoleSchema) });
