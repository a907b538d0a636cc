import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import type { SegmentLimits } from "../segments/segment-limits.js";
import { uiConfig } from "./ui-config.js";

export function uiConfigRoutes({ limits, access }: { limits: SegmentLimits; access: AccessService }): Router {
  const router = express.Router();
  const config = uiConfig({ limits });
  mountGuardedContract(
    router,
    adminContract.uiConfig,
    { access },
    {
      get: async () => {
        return { status: 200, body: config };
      },
    },
  );
  return router;
}
