import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import { mountContract } from "@vexil/http";
import type { AccessService } from "../access/access-service.js";
import { permissions } from "../access/permissions.js";
import type { ServiceAccountService } from "./service-account-service.js";

/** Managing service accounts needs ADMIN, as in Unleash. */
export function serviceAccountRoutes({
  serviceAccounts,
  access,
}: {
  serviceAccounts: ServiceAccountService;
  access: AccessService;
}): Router {
  const router = express.Router();
  // ts-rest types `req.params` after coercion (numeric ids), which express's Request does not allow.
  const admin = (req: unknown) => access.assert(req as express.Request, permissions.admin);
  mountContract(router, adminContract.serviceAccounts, {
    list: async ({ req }) => {
      admin(req);
      return { status: 200, body: { serviceAccounts: await serviceAccounts.list(), rootRoles: serviceAccounts.rootRoles } };
    },
    create: async ({ body, req }) => ({ status: 201, body: await serviceAccounts.create(body, admin(req)) }),
    update: async ({ params, body, req }) => ({ status: 200, body: await serviceAccounts.update(params.id, body, admin(req)) }),
    delete: async ({ params, req }) => {
      await serviceAccounts.delete(params.id, admin(req));
      return { status: 200, body: undefined };
    },
    listTokens: async ({ params, req }) => {
      admin(req);
      return { status: 200, body: { pats: await serviceAccounts.listTokens(params.id) } };
    },
    createToken: async ({ params, body, req }) => ({ status: 201, body: await serviceAccounts.createToken(params.id, body, admin(req)) }),
    deleteToken: async ({ params, req }) => {
      await serviceAccounts.deleteToken(params.id, params.tokenId, admin(req));
      return { status: 200, body: undefined };
    },
  });
  return router;
}
