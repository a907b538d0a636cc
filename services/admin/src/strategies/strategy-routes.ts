import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import { mountContract } from "@vexil/http";
import type { AccessService } from "../access/access-service.js";
import { permissions } from "../access/permissions.js";
import type { StrategyService } from "./strategy-service.js";

export function strategyRoutes({ strategies, access }: { strategies: StrategyService; access: AccessService }): Router {
  const router = express.Router();
  mountContract(router, adminContract.strategies, {
    list: async ({ req }) => {
      access.assert(req, permissions.read);
      return { status: 200, body: { version: 1 as const, strategies: await strategies.list() } };
    },
    get: async ({ params, req }) => {
      access.assert(req, permissions.read);
      return { status: 200, body: await strategies.get(params.name) };
    },
    create: async ({ body, req, res }) => {
      const actor = access.assert(req, permissions.createStrategy);
      const created = await strategies.create(body, actor);
      res.setHeader("location", `strategies/${encodeURIComponent(created.name)}`);
      return { status: 201, body: created };
    },
    update: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.updateStrategy);
      await strategies.update(params.name, body, actor);
      return { status: 200, body: undefined };
    },
    deprecate: async ({ params, req }) => {
      const actor = access.assert(req, permissions.updateStrategy);
      await strategies.deprecate(params.name, actor);
      return { status: 200, body: undefined };
    },
    reactivate: async ({ params, req }) => {
      const actor = access.assert(req, permissions.updateStrategy);
      await strategies.reactivate(params.name, actor);
      return { status: 200, body: undefined };
    },
    delete: async ({ params, req }) => {
      const actor = access.assert(req, permissions.deleteStrategy);
      await strategies.delete(params.name, actor);
      return { status: 200, body: undefined };
    },
  });
  return router;
}
