import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import { mountContract } from "@vexil/http";
import type { AccessService } from "../access/access-service.js";
import { permissions } from "../access/permissions.js";
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
  // ts-rest types `req.params` after coercion (numeric ids), which express's Request does not allow.
  const admin = (req: unknown) => access.assert(req as express.Request, permissions.admin);
  mountContract(router, adminContract.signalEndpoints, {
    list: async ({ req }) => {
      admin(req);
      return { status: 200, body: { signalEndpoints: await signalEndpoints.list() } };
    },
    create: async ({ body, req }) => ({ status: 201, body: await signalEndpoints.create(body, admin(req)) }),
    update: async ({ params, body, req }) => ({ status: 200, body: await signalEndpoints.update(params.id, body, admin(req)) }),
    delete: async ({ params, req }) => {
      await signalEndpoints.delete(params.id, admin(req));
      return { status: 200, body: undefined };
    },
    enable: async ({ params, req }) => {
      await signalEndpoints.setEnabled(params.id, true, admin(req));
      return { status: 200, body: undefined };
    },
    disable: async ({ params, req }) => {
      await signalEndpoints.setEnabled(params.id, false, admin(req));
      return { status: 200, body: undefined };
    },
    listTokens: async ({ params, req }) => {
      admin(req);
      return { status: 200, body: { signalEndpointTokens: await signalEndpoints.listTokens(params.id) } };
    },
    createToken: async ({ params, body, req }) => ({
      status: 201,
      body: await signalEndpoints.createToken(params.id, body.name, admin(req)),
    }),
    updateToken: async ({ params, body, req }) => {
      await signalEndpoints.renameToken(params.signalEndpointId, params.id, body.name, admin(req));
      return { status: 200, body: undefined };
    },
    deleteToken: async ({ params, req }) => {
      await signalEndpoints.deleteToken(params.signalEndpointId, params.id, admin(req));
      return { status: 200, body: undefined };
    },
    listSignals: async ({ params, query, req }) => {
      admin(req);
      return { status: 200, body: { signalEndpointSignals: await signalEndpoints.listSignals(params.id, query) } };
    },
  });
  return router;
}
