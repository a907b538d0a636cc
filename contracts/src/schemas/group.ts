import { z } from "zod";
import { dateTimeSchema } from "../common.js";

/** A member of a group, as Unleash lists them. */
export const groupUserSchema = z.object({
  user: z.object({
    id: z.number().int(),
    name: z.string().nullable(),
    username: z.string().nullable(),
    email: z.string().optional(),
  }),
  joinedAt: dateTimeSchema,
  createdBy: z.string().nullable(),
});

/**
 * A group of users (Unleash's group): its root role adds to each member's own, its project roles
 * are given through a project's access (`POST /projects/:id/access` with `groups`), and an identity
 * provider's groups named in `mappingsSSO` decide its members at each single sign-on.
 */
export const groupSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string().nullable(),
  mappingsSSO: z.array(z.string()),
  rootRole: z.number().int().nullable(),
  users: z.array(groupUserSchema),
  userCount: z.number().int(),
  createdAt: dateTimeSchema,
  createdBy: z.string().nullable(),
});
export type Group = z.infer<typeof groupSchema>;

export const groupListSchema = z.object({ groups: z.array(groupSchema) });

export const groupInputSchema = z.object({
  name: z.string().trim().min(1, "Must not be empty").max(100),
  description: z.string().max(1000).nullable().optional(),
  /** The identity provider's group names whose members belong to this group. */
  mappingsSSO: z.array(z.string().trim().min(1, "Must not be empty").max(255)).max(100).default([]),
  /** A root role id (1 Admin, 2 Editor, 3 Viewer) the members hold at least; null for none. */
  rootRole: z.number().int().nullable().default(null),
  users: z
    .array(z.object({ user: z.object({ id: z.number().int() }) }))
    .max(10_000)
    .default([]),
});
export type GroupInput = z.infer<typeof groupInputSchema>;
