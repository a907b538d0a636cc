import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import { mountContract } from "@vexil/http";
import type { AccessService } from "../access/access-service.js";
import { permissions } from "../access/permissions.js";
import type { FlagLinkService } from "./flag-link-service.js";

/** Links are part of a flag's description: changing them takes UPDATE_FEATURE in its project, as in Unleash. */
export function flagLinkRoutes({ links, access }: { links: FlagLinkService; access: AccessService }): Router {
  const router = express.Router();
  mountContract(router, adminContract.flagLinks, {
    create: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.updateFeature, { project: params.projectId });
      await links.create(params.projectId, params.featureName, body, actor);
      return { status: 204, body: undefined };
    },
    update: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.updateFeature, { project: params.projectId });
      await links.update(params.projectId, params.featureName, params.linkId, body, actor);
      return { status: 204, body: undefined };
    },
    remove: async ({ params, req }) => {
      const actor = access.assert(req, permissions.updateFeature, { project: params.projectId });
      await links.remove(params.projectId, params.featureName, params.linkId, actor);
      return { status: 204, body: undefined };
    },
  });
  return router;
}
