import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import type { ContextService } from "./context-service.js";

export function contextRoutes({ context, access }: { context: ContextService; access: AccessService }): Router {
  const router = express.Router();
  mountGuardedContract(
    router,
    adminContract.context,
    { access },
    {
      list: async () => {
        return { status: 200, body: await context.list() };
      },
      get: async ({ params }) => {
        return { status: 200, body: await context.get(params.name) };
      },
      create: async ({ body, res, actor }) => {
        const created = await context.create(body, actor);
        res.setHeader("location", `context/${encodeURIComponent(created.name)}`);
        return { status: 201, body: created };
      },
      validateName: async ({ body }) => {
        await context.validateName(body.name);
        return { status: 200, body: undefined };
      },
      update: async ({ params, body, actor }) => {
        await context.update(params.name, body, actor);
        return { status: 200, body: undefined };
      },
      delete: async ({ params, actor }) => {
        await context.delete(params.name, actor);
        return { status: 200, body: undefined };
      },
    },
  );
  return router;
}
