import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import type { UsageService } from "./usage-service.js";

/** `/api/admin/client-metrics/features/:name` and `/raw`: readable by every signed-in caller, as in Unleash. */
export function usageRoutes({ usage, access }: { usage: UsageService; access: AccessService }): Router {
  const router = express.Router();
  mountGuardedContract(
    router,
    adminContract.usageMetrics,
    { access },
    {
      summary: async ({ params }) => {
        return { status: 200, body: await usage.summary(params.name) };
      },
      raw: async ({ params, query }) => {
        return { status: 200, body: await usage.raw(params.name, query.hoursBack) };
      },
    },
  );
  return router;
}
