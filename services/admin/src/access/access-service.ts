import type { Request } from "express";
import { AuthenticationRequired, NoAccessError } from "@vexil/errors";
import { getPrincipal, type Principal } from "@vexil/auth";
import { actorOf, type Actor } from "./actor.js";
import type { Permission } from "./permissions.js";

export interface AccessScope {
  project?: string;
  environment?: string;
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
