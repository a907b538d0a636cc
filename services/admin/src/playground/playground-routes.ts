import express, { type Request, type Router } from "express";
import { adminContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import type { PlaygroundService } from "./playground-service.js";

/** Private projects are invisible to non-members here as on every other admin path. */
export interface PlaygroundPrivacy {
  maySee(req: Request, project: string): Promise<boolean>;
}

/** Any signed-in user or admin token may use the playground, as in Unleash; it changes nothing. */
export function playgroundRoutes({
  playground,
  access,
  privacy,
}: {
  playground: PlaygroundService;
  access: AccessService;
  privacy: PlaygroundPrivacy;
}): Router {
  const router = express.Router();
  mountGuardedContract(
    router,
    adminContract.playground,
    { access },
    {
      evaluate: async ({ body, req }) => {
        return { status: 200, body: await playground.evaluate(body, (project) => privacy.maySee(req, project)) };
      },
    },
  );
  return router;
}
