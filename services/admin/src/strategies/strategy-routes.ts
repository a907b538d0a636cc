import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import type { StrategyService } from "./strategy-service.js";

export function strategyRoutes({ strategies, access }: { strategies: StrategyService; access: AccessService }): Router {
  const router = express.Router();
  mountGuardedContract(
    router,
    adminContract.strategies,
    { access },
    {
      list: async () => {
        return { status: 200, body: { version: 1 as const, strategies: await strategies.list() } };
      },
      get: async ({ params }) => {
        return { status: 200, body: await strategies.get(params.name) };
      },
      create: async ({ body, res, actor }) => {
        const created = await strategies.create(body, actor);
        res.setHeader("location", `strategies/${encodeURIComponent(created.name)}`);
        return { status: 201, body: created };
      },
      update: async ({ params, body, actor }) => {
        await strategies.update(params.name, body, actor);
        return { status: 200, body: undefined };
      },
      deprecate: async ({ params, actor }) => {
        await strategies.deprecate(params.name, actor);
        return { status: 200, body: undefined };
      },
      reactivate: async ({ params, actor }) => {
        await strategies.reactivate(params.name, actor);
        return { status: 200, body: undefined };
      },
      delete: async ({ params, actor }) => {
        await strategies.delete(params.name, actor);
        return { status: 200, body: undefined };
      },
    },
  );
  return router;
}
