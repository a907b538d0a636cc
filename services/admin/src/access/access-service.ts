import type { Request } from "express";
import { AuthenticationRequired, NoAccessError } from "@vexil/errors";
import { getPrincipal, principalName, type Principal } from "@vexil/auth";
import type { Permission } from "./permissions.js";

export interface AccessScope {
  project?: string;
  environment?: string;
}

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

/**
 * Decides whether a principal holds a permission in a scope. Admin API tokens hold every
 * permission; other principals are decided by the rules given (roles, once users exist).
 */
export interface AccessRule {
  allows(principal: Principal, permission: Permission, scope: AccessScope): boolean | undefined;
}

/** The principal the authenticators attached to a request (express's or ts-rest's view of it). */
export function principalOf(req: object): Principal | undefined {
  return getPrincipal(req as Request);
}

export class AccessService {
  constructor(private readonly rules: AccessRule[] = []) {}

  can(principal: Principal, permission: Permission, scope: AccessScope = {}): boolean {
    if (principal.kind === "api-token" && principal.grant.type === "admin") return true;
    for (const rule of this.rules) {
      const verdict = rule.allows(principal, permission, scope);
      if (verdict !== undefined) return verdict;
    }
    return false;
  }

  /**
   * The authenticated caller of a request, refused with 403 naming the permission it lacks. Takes
   * any request object: ts-rest's typed requests (numeric params) are express requests underneath.
   */
  assert(req: object, permission: Permission, scope: AccessScope = {}): Actor {
    const principal = principalOf(req);
    if (!principal) throw new AuthenticationRequired("You must provide an API token or sign in");
    if (!this.can(principal, permission, scope)) throw new NoAccessError(permission, scope.environment);
    return actorOf(principal);
  }
}
