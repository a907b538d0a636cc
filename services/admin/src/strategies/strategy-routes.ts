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
  });
  return router;
}
