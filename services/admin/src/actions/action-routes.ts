import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import { mountContract } from "@vexil/http";
import type { AccessService } from "../access/access-service.js";
import { permissions, type Permission } from "../access/permissions.js";
import type { ActionService } from "./action-service.js";

/** Action sets are managed by admins (Unleash: ADMIN or the project's owners); anyone may read. */
export function actionRoutes({ actions, access }: { actions: ActionService; access: AccessService }): Router {
  const router = express.Router();
  // ts-rest types `req.params` after coercion (numeric ids), which express's Request does not allow.
  const assert = (req: unknown, permission: Permission, project: string) => access.assert(req as express.Request, permission, { project });
  const admin = (req: unknown, project: string) => assert(req, permissions.admin, project);
  mountContract(router, adminContract.actions, {
    list: async ({ params, req }) => {
      assert(req, permissions.read, params.projectId);
      return { status: 200, body: { actions: await actions.list(params.projectId) } };
    },
    create: async ({ params, body, req }) => ({
      status: 201,
      body: await actions.create(params.projectId, body, admin(req, params.projectId)),
    }),
    update: async ({ params, body, req }) => ({
      status: 200,
      body: await actions.update(params.projectId, params.id, body, admin(req, params.projectId)),
    }),
    delete: async ({ params, req }) => {
      await actions.delete(params.projectId, params.id, admin(req, params.projectId));
      return { status: 200, body: undefined };
    },
    enable: async ({ params, req }) => {
      await actions.setEnabled(params.projectId, params.id, true, admin(req, params.projectId));
      return { status: 200, body: undefined };
    },
    disable: async ({ params, req }) => {
      await actions.setEnabled(params.projectId, params.id, false, admin(req, params.projectId));
      return { status: 200, body: undefined };
    },
    events: async ({ params, query, req }) => {
      assert(req, permissions.read, params.projectId);
      return { status: 200, body: { actionSetEvents: await actions.events(params.projectId, params.id, query) } };
    },
  });
  return router;
}
