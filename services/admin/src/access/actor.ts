import { principalName, type Principal } from "@vexil/auth";

/** Who is acting, as recorded on events and `createdBy` fields. */
export interface Actor {
  name: string;
  userId: number;
  /** A signed-in person's email, when known (for their avatar). */
  email?: string | null;
}

/** Unleash's id for changes made with an admin API token rather than by a person. */
export const apiTokenUserId = -42;
export const systemActor: Actor = { name: "system", userId: -1337 };

export function actorOf(principal: Principal): Actor {
  if (principal.kind === "api-token") return { name: principalName(principal), userId: principal.grant.userId ?? apiTokenUserId };
  return { name: principalName(principal), userId: principal.user.id, email: principal.user.email };
}
