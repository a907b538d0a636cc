import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import { mountContract } from "@vexil/http";
import type { AccessService } from "../access/access-service.js";
import { permissions, type Permission } from "../access/permissions.js";
import type { AddonService } from "./addon-service.js";

/** Addon configurations are admin-only: they hold credentials for outside systems. */
export function addonRoutes({ addons, access }: { addons: AddonService; access: AccessService }): Router {
  const router = express.Router();
  // ts-rest types `req.params` after coercion (numeric ids), which express's Request does not allow.
  const assert = (req: unknown, permission: Permission) => access.assert(req as express.Request, permission);
  mountContract(router, adminContract.addons, {
    list: async ({ req }) => {
      assert(req, permissions.admin);
      return { status: 200, body: await addons.list() };
    },
    create: async ({ body, req }) => {
      const actor = assert(req, permissions.createAddon);
      return { status: 200, body: await addons.create(body, actor) };
    },
    get: async ({ params, req }) => {
      assert(req, permissions.admin);
      return { status: 200, body: await addons.get(params.id) };
    },
    update: async ({ params, body, req }) => {
      const actor = assert(req, permissions.updateAddon);
      return { status: 200, body: await addons.update(params.id, body, actor) };
    },
    remove: async ({ params, req }) => {
      const actor = assert(req, permissions.deleteAddon);
      await addons.remove(params.id, actor);
      return { status: 200, body: undefined };
    },
    events: async ({ params, query, req }) => {
      assert(req, permissions.admin);
      return { status: 200, body: await addons.deliveries(params.id, query) };
    },
  });
  return router;
}
