import { z } from "zod";
import { permissions, requires } from "../route-access.js";
import { c, errorResponses, routerOptions } from "../common.js";
import { groupInputSchema, groupListSchema, groupSchema } from "../schemas/index.js";

const groupParams = z.object({ groupId: z.coerce.number().int().positive() });
const example = { name: "flag-editors", description: "Edit flags in payments", mappingsSSO: ["payments-engineers"], rootRole: null };

/** Groups of users, with roles, as Unleash Enterprise's `/api/admin/groups`. */
export const groupsContract = c.router(
  {
    list: {
      method: "GET",
      path: "/groups",
      metadata: requires(permissions.admin),
      summary: "List groups",
      description: "Every group with its members, root role and the identity provider groups mapped to it.",
      responses: { 200: groupListSchema, ...errorResponses(401, 403) },
    },
    create: {
      method: "POST",
      path: "/groups",
      summary: "Create a group",
      description:
        "Creates a group. Members hold at least its root role, and the project roles given to it in a project's access. With SAML or OIDC group syncing, a user who signs in is a member exactly while the identity provider reports one of the `mappingsSSO` groups.",
      metadata: { ...requires(permissions.admin), requestExample: example },
      body: groupInputSchema,
      responses: { 201: groupSchema, ...errorResponses(400, 401, 403, 409, 413, 415) },
    },
    get: {
      method: "GET",
      path: "/groups/:groupId",
      metadata: requires(permissions.admin),
      pathParams: groupParams,
      summary: "Read a group",
      description: "A group with its members.",
      responses: { 200: groupSchema, ...errorResponses(400, 401, 403, 404) },
    },
    update: {
      method: "PUT",
      path: "/groups/:groupId",
      pathParams: groupParams,
      summary: "Replace a group",
      description: "Replaces the group's name, description, SSO mappings, root role and members.",
      metadata: { ...requires(permissions.admin), requestExample: example },
      body: groupInputSchema,
      responses: { 200: groupSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
    },
    delete: {
      method: "DELETE",
      path: "/groups/:groupId",
      metadata: requires(permissions.admin),
      pathParams: groupParams,
      body: c.noBody(),
      summary: "Delete a group",
      description: "Deletes the group and the project roles given to it; its members keep their own roles.",
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
  },
  routerOptions,
);
