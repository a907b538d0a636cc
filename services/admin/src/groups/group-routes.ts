import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import { mountContract } from "@vexil/http";
import type { AccessService } from "../access/access-service.js";
import { permissions } from "../access/permissions.js";
import type { GroupService } from "./group-service.js";

export function groupRoutes({ groups, access }: { groups: GroupService; access: AccessService }): Router {
  const router = express.Router();
  mountContract(router, adminContract.groups, {
    list: async ({ req }) => {
      access.assert(req, permissions.admin);
      return { status: 200, body: { groups: await groups.list() } };
    },
    create: async ({ body, req, res }) => {
      const actor = access.assert(req, permissions.admin);
      const group = await groups.create(body, actor);
      res.location(`/api/admin/groups/${group.id}`);
      return { status: 201, body: group };
    },
    get: async ({ params, req }) => {
      access.assert(req, permissions.admin);
      return { status: 200, body: await groups.get(params.groupId) };
    },
    update: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.admin);
      return { status: 200, body: await groups.update(params.groupId, body, actor) };
    },
    delete: async ({ params, req }) => {
      const actor = access.assert(req, permissions.admin);
      await groups.delete(params.groupId, actor);
      return { status: 200, body: undefined };
    },
  });
  return router;
}
