import type { Principal, RootRole } from "@vexil/auth";
import { ValidationError } from "@vexil/errors";
import type { AccessRule } from "../access/access-service.js";
import { permissions, type Permission } from "../access/permissions.js";

export interface RootRoleInfo {
  id: number;
  name: RootRole;
  type: "root";
  description: string;
}

/** Unleash's root roles, with Unleash's ids. */
export const rootRoles: readonly RootRoleInfo[] = [
  { id: 1, name: "Admin", type: "root", description: "Users with the root admin role can perform any operation." },
  {
    id: 2,
    name: "Editor",
    type: "root",
    description:
      "Users with the root editor role can change flags, projects, segments, strategies, tags, context fields, environments and applications, but not API tokens, users, addons, signal endpoints or SAML.",
  },
  { id: 3, name: "Viewer", type: "root", description: "Users with the root viewer role can only read; they may not view API tokens." },
];

export const viewerRoleId = 3;

export function rootRoleById(id: number): RootRoleInfo {
  const role = rootRoles.find((r) => r.id === id);
  if (!role) throw new ValidationError(`Could not find root role with id ${id}`);
  return role;
}

export function rootRoleByName(name: RootRole): RootRoleInfo {
  return rootRoles.find((r) => r.name === name)!;
}

/** Resolves a role given by id or by name, as Unleash takes both; an unknown id is bad input. */
export function resolveRootRole(ref: number | RootRole): RootRoleInfo {
  return typeof ref === "number" ? rootRoleById(ref) : rootRoleByName(ref);
}

/**
 * What an Editor may never do, whatever new permission names appear: manage credentials, people,
 * integrations and signal endpoints. Checked before the allow-list below.
 */
const editorForbidden = /API_TOKEN|ADDON|SIGNAL|USER|SAML|ROLE|SERVICE_ACCOUNT|ACTION/;
/** The flag model an Editor changes; anything else is Admin-only until it is listed here. */
const editorAllowed = /FEATURE|PROJECT|SEGMENT|STRATEGY|CONTEXT_FIELD|TAG|ENVIRONMENT|CHANGE_REQUEST|APPLICATION/;

export function rolePermits(role: RootRole, permission: Permission | string): boolean {
  if (role === "Admin") return true;
  if (permission === permissions.read) return true;
  if (role === "Viewer") return false;
  if (permission === permissions.admin || editorForbidden.test(permission)) return false;
  return editorAllowed.test(permission);
}

/** Signed-in users (session or personal access token) hold what their root role permits. */
export const rootRoleRule: AccessRule = {
  allows(principal: Principal, permission: Permission) {
    if (principal.kind !== "user") return undefined;
    return rolePermits(principal.user.rootRole, permission);
  },
};
