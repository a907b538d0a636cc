import type { Principal } from "@vexil/auth";
import { projectRoleIds } from "@vexil/contracts";
import type { AccessRule, AccessScope } from "../access/access-service.js";
import { permissions, type Permission } from "../access/permissions.js";
import { rolePermits } from "./root-roles.js";

/** What a Member may not do in its project: change or delete the project itself. */
const ownerOnly = new Set<string>([permissions.updateProject, permissions.deleteProject]);

/**
 * A user with a project role (in person or through a group) changes the project's flag model as
 * an Editor would, there only; an Owner also manages the project and its access. Silent (undefined)
 * elsewhere, so the root role decides.
 */
export const projectRoleRule: AccessRule = {
  allows(principal: Principal, permission: Permission, { project }: AccessScope) {
    if (principal.kind !== "user" || project === undefined) return undefined;
    const roles = principal.user.projectRoles?.[project];
    if (!roles?.length || !rolePermits("Editor", permission)) return undefined;
    if (roles.includes(projectRoleIds.owner)) return true;
    return roles.includes(projectRoleIds.member) && !ownerOnly.has(permission) ? true : undefined;
  },
};
