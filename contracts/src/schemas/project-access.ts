import { z } from "zod";

/** Unleash's project roles. */
export const projectRoleIds = { owner: 4, member: 5 } as const;

/** The project roles there are and each member's roles, as Unleash lists them. */
export const projectAccessSchema = z.object({
  roles: z.array(z.object({ id: z.number().int(), name: z.string(), type: z.literal("project") })),
  users: z.array(z.object({ id: z.number().int(), roles: z.array(z.number().int()), addedAt: z.string() })),
  /** Groups given project roles: each of their members holds those roles in the project. */
  groups: z.array(z.object({ id: z.number().int(), roles: z.array(z.number().int()), addedAt: z.string() })),
});

export const addProjectAccessBodySchema = z.object({
  roles: z.array(z.number().int()).min(1),
  users: z.array(z.object({ id: z.number().int() })).default([]),
  groups: z.array(z.object({ id: z.number().int() })).default([]),
});
