import type { Request } from "express";
import { NoAccessError } from "@vexil/errors";
import { ALL } from "./token-secret.js";
import type { TokenGrant } from "./token-set.js";

export type RootRole = "Admin" | "Editor" | "Viewer";

export interface SessionUser {
  id: number;
  name: string | null;
  username: string | null;
  email: string | null;
  rootRole: RootRole;
  /** Project roles held in person or through a group, by project (ids: 4 Owner, 5 Member). */
  projectRoles?: Readonly<Record<string, readonly number[]>>;
}

export type Principal =
  | { kind: "api-token"; grant: TokenGrant; secret: string }
  /** `sessionId`: the cookie's value, so a password change can keep this session and end the others. */
  | { kind: "user"; user: SessionUser; via: "session"; sessionId: string }
  | { kind: "user"; user: SessionUser; via: "personal-access-token" };

const principalKey = Symbol("vexil.principal");

export function setPrincipal(req: Request, principal: Principal): void {
  (req as unknown as Record<symbol, Principal>)[principalKey] = principal;
}

export function getPrincipal(req: Request): Principal | undefined {
  return (req as unknown as Record<symbol, Principal | undefined>)[principalKey];
}

/** The name recorded as `createdBy` on what this principal changes. */
export function principalName(principal: Principal): string {
  if (principal.kind === "api-token") return principal.grant.tokenName;
  return principal.user.username ?? principal.user.email ?? principal.user.name ?? `user-${principal.user.id}`;
}

/** A token reaches a project when it names it or all projects. */
export function tokenCoversProject(grant: TokenGrant, project: string): boolean {
  return grant.projects.includes(ALL) || grant.projects.includes(project);
}

export function tokenCoversEnvironment(grant: TokenGrant, environment: string): boolean {
  return grant.environment === ALL || grant.environment === environment;
}

/** Refuses a token whose scope does not include the project and environment asked for. */
export function assertTokenScope(
  grant: TokenGrant,
  { project, environment, permission }: { project?: string; environment?: string; permission: string },
): void {
  if (project !== undefined && !tokenCoversProject(grant, project)) {
    throw new NoAccessError(`${permission} in project ${project}`);
  }
  if (environment !== undefined && !tokenCoversEnvironment(grant, environment)) {
    throw new NoAccessError(permission, environment);
  }
}
