import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import { mountContract } from "@vexil/http";
import type { AccessService } from "../access/access-service.js";
import { permissions } from "../access/permissions.js";
import type { ClientApplicationService } from "./client-application-service.js";

export function clientApplicationRoutes({
  applications,
  access,
}: {
  applications: ClientApplicationService;
  access: AccessService;
}): Router {
  const router = express.Router();
  mountContract(router, adminContract.applications, {
    list: async ({ query, req }) => {
      access.assert(req, permissions.read);
      return { status: 200, body: await applications.list(query) };
    },
    get: async ({ params, req }) => {
      access.assert(req, permissions.read);
      return { status: 200, body: await applications.get(params.appName) };
    },
    update: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.updateApplication);
      await applications.update(params.appName, body, actor);
      return { status: 202, body: undefined };
    },
    delete: async ({ params, req }) => {
      access.assert(req, permissions.updateApplication);
      await applications.delete(params.appName);
      return { status: 200, body: undefined };
    },
  });
  return router;
}
