import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import type { ClientApplicationService } from "./client-application-service.js";

export function clientApplicationRoutes({
  applications,
  access,
}: {
  applications: ClientApplicationService;
  access: AccessService;
}): Router {
  const router = express.Router();
  mountGuardedContract(
    router,
    adminContract.applications,
    { access },
    {
      list: async ({ query }) => {
        return { status: 200, body: await applications.list(query) };
      },
      get: async ({ params }) => {
        return { status: 200, body: await applications.get(params.appName) };
      },
      update: async ({ params, body, actor }) => {
        await applications.update(params.appName, body, actor);
        return { status: 202, body: undefined };
      },
      delete: async ({ params }) => {
        await applications.delete(params.appName);
        return { status: 200, body: undefined };
      },
    },
  );
  return router;
}
