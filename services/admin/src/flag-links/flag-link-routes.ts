import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import type { FlagLinkService } from "./flag-link-service.js";

/** Links are part of a flag's description: changing them takes UPDATE_FEATURE in its project, as in Unleash. */
export function flagLinkRoutes({ links, access }: { links: FlagLinkService; access: AccessService }): Router {
  const router = express.Router();
  mountGuardedContract(
    router,
    adminContract.flagLinks,
    { access },
    {
      create: async ({ params, body, actor }) => {
        await links.create(params.projectId, params.featureName, body, actor);
        return { status: 204, body: undefined };
      },
      update: async ({ params, body, actor }) => {
        await links.update(params.projectId, params.featureName, params.linkId, body, actor);
        return { status: 204, body: undefined };
      },
      remove: async ({ params, actor }) => {
        await links.remove(params.projectId, params.featureName, params.linkId, actor);
        return { status: 204, body: undefined };
      },
    },
  );
  return router;
}
