import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import type { SignalEndpointService } from "./signal-endpoint-service.js";

/** Signal endpoints are an instance-wide admin tool: every route needs ADMIN, as in Unleash. */
export function signalEndpointRoutes({
  signalEndpoints,
  access,
}: {
  signalEndpoints: SignalEndpointService;
  access: AccessService;
}): Router {
  const router = express.Router();
  mountGuardedContract(
    router,
    adminContract.signalEndpoints,
    { access },
    {
      list: async () => {
        return { status: 200, body: { signalEndpoints: await signalEndpoints.list() } };
      },
      create: async ({ body, actor }) => ({ status: 201, body: await signalEndpoints.create(body, actor) }),
      update: async ({ params, body, actor }) => ({ status: 200, body: await signalEndpoints.update(params.id, body, actor) }),
      delete: async ({ params, actor }) => {
        await signalEndpoints.delete(params.id, actor);
        return { status: 200, body: undefined };
      },
      enable: async ({ params, actor }) => {
        await signalEndpoints.setEnabled(params.id, true, actor);
        return { status: 200, body: undefined };
      },
      disable: async ({ params, actor }) => {
        await signalEndpoints.setEnabled(params.id, false, actor);
        return { status: 200, body: undefined };
      },
      listTokens: async ({ params }) => {
        return { status: 200, body: { signalEndpointTokens: await signalEndpoints.listTokens(params.id) } };
      },
      createToken: async ({ params, body, actor }) => ({
        status: 201,
        body: await signalEndpoints.createToken(params.id, body.name, actor),
      }),
      updateToken: async ({ params, body, actor }) => {
        await signalEndpoints.renameToken(params.signalEndpointId, params.id, body.name, actor);
        return { status: 200, body: undefined };
      },
      deleteToken: async ({ params, actor }) => {
        await signalEndpoints.deleteToken(params.signalEndpointId, params.id, actor);
        return { status: 200, body: undefined };
      },
      listSignals: async ({ params, query }) => {
        return { status: 200, body: { signalEndpointSignals: await signalEndpoints.listSignals(params.id, query) } };
      },
    },
  );
  return router;
}
