import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import type { AddonService } from "./addon-service.js";

/** Addon configurations are admin-only: they hold credentials for outside systems. */
export function addonRoutes({ addons, access }: { addons: AddonService; access: AccessService }): Router {
  const router = express.Router();
  mountGuardedContract(
    router,
    adminContract.addons,
    { access },
    {
      list: async () => {
        return { status: 200, body: await addons.list() };
      },
      create: async ({ body, actor }) => {
        return { status: 200, body: await addons.create(body, actor) };
      },
      get: async ({ params }) => {
        return { status: 200, body: await addons.get(params.id) };
      },
      update: async ({ params, body, actor }) => {
        return { status: 200, body: await addons.update(params.id, body, actor) };
      },
      remove: async ({ params, actor }) => {
        await addons.remove(params.id, actor);
        return { status: 200, body: undefined };
      },
      events: async ({ params, query }) => {
        return { status: 200, body: await addons.deliveries(params.id, query) };
      },
    },
  );
  return router;
}
