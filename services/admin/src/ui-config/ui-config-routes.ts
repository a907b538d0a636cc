import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import { mountContract } from "@vexil/http";
import type { AccessService } from "../access/access-service.js";
import { permissions } from "../access/permissions.js";
import type { SegmentLimits } from "../segments/segment-limits.js";
import { uiConfig } from "./ui-config.js";

export function uiConfigRoutes({ limits, access }: { limits: SegmentLimits; access: AccessService }): Router {
  const router = express.Router();
  const config = uiConfig({ limits });
  mountContract(router, adminContract.uiConfig, {
    get: async ({ req }) => {
      access.assert(req, permissions.read);
      return { status: 200, body: config };
    },
  });
  return router;
}
