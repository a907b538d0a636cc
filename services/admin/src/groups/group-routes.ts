import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import type { GroupService } from "./group-service.js";

export function groupRoutes({ groups, access }: { groups: GroupService; access: AccessService }): Router {
  const router = express.Router();
  mountGuardedContract(
    router,
    adminContract.groups,
    { access },
    {
      list: async () => {
        return { status: 200, body: { groups: await groups.list() } };
      },
      create: async ({ body, res, actor }) => {
        const group = await groups.create(body, actor);
        res.location(`/api/admin/groups/${group.id}`);
        return { status: 201, body: group };
      },
      get: async ({ params }) => {
        return { status: 200, body: await groups.get(params.groupId) };
      },
      update: async ({ params, body, actor }) => {
        return { status: 200, body: await groups.update(params.groupId, body, actor) };
      },
      delete: async ({ params, actor }) => {
        await groups.delete(params.groupId, actor);
        return { status: 200, body: undefined };
      },
    },
  );
  return router;
}
