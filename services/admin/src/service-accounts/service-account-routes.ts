import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
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
  mountGuardedContract(
    router,
    adminContract.serviceAccounts,
    { access },
    {
      list: async () => {
        return { status: 200, body: { serviceAccounts: await serviceAccounts.list(), rootRoles: serviceAccounts.rootRoles } };
      },
      create: async ({ body, actor }) => ({ status: 201, body: await serviceAccounts.create(body, actor) }),
      update: async ({ params, body, actor }) => ({ status: 200, body: await serviceAccounts.update(params.id, body, actor) }),
      delete: async ({ params, actor }) => {
        await serviceAccounts.delete(params.id, actor);
        return { status: 200, body: undefined };
      },
      listTokens: async ({ params }) => {
        return { status: 200, body: { pats: await serviceAccounts.listTokens(params.id) } };
      },
      createToken: async ({ params, body, actor }) => ({ status: 201, body: await serviceAccounts.createToken(params.id, body, actor) }),
      deleteToken: async ({ params, actor }) => {
        await serviceAccounts.deleteToken(params.id, params.tokenId, actor);
        return { status: 200, body: undefined };
      },
    },
  );
  return router;
}
