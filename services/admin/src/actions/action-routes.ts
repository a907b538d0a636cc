import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import type { ActionService } from "./action-service.js";

/** Action sets are managed by admins (Unleash: ADMIN or the project's owners); anyone may read. */
export function actionRoutes({ actions, access }: { actions: ActionService; access: AccessService }): Router {
  const router = express.Router();
  mountGuardedContract(
    router,
    adminContract.actions,
    { access },
    {
      list: async ({ params }) => {
        return { status: 200, body: { actions: await actions.list(params.projectId) } };
      },
      create: async ({ params, body, actor }) => ({
        status: 201,
        body: await actions.create(params.projectId, body, actor),
      }),
      update: async ({ params, body, actor }) => ({
        status: 200,
        body: await actions.update(params.projectId, params.id, body, actor),
      }),
      delete: async ({ params, actor }) => {
        await actions.delete(params.projectId, params.id, actor);
        return { status: 200, body: undefined };
      },
      enable: async ({ params, actor }) => {
        await actions.setEnabled(params.projectId, params.id, true, actor);
        return { status: 200, body: undefined };
      },
      disable: async ({ params, actor }) => {
        await actions.setEnabled(params.projectId, params.id, false, actor);
        return { status: 200, body: undefined };
      },
      events: async ({ params, query }) => {
        return { status: 200, body: { actionSetEvents: await actions.events(params.projectId, params.id, query) } };
      },
    },
  );
  return router;
}
