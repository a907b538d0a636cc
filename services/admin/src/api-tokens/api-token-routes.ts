import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import { mountContract } from "@vexil/http";
import type { AccessService } from "../access/access-service.js";
import { permissions } from "../access/permissions.js";
import type { ApiTokenService } from "./api-token-service.js";

export function apiTokenRoutes({ apiTokens, access }: { apiTokens: ApiTokenService; access: AccessService }): Router {
  const router = express.Router();
  mountContract(router, adminContract.apiTokens, {
    list: async ({ req }) => {
      access.assert(req, permissions.readApiToken);
      return { status: 200, body: { tokens: await apiTokens.list() } };
    },
    create: async ({ body, req }) => {
      const actor = access.assert(req, permissions.createApiToken);
      const token = await apiTokens.create(
        {
          tokenName: (body.tokenName ?? body.username)!,
          type: body.type,
          environment: body.environment,
          projects: body.projects ?? (body.project ? [body.project] : undefined),
          expiresAt: body.expiresAt,
        },
        actor,
      );
      return { status: 201, body: token };
    },
    getByName: async ({ params, req }) => {
      access.assert(req, permissions.readApiToken);
      return { status: 200, body: { tokens: await apiTokens.listByName(params.name) } };
    },
    update: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.updateApiToken);
      return { status: 200, body: await apiTokens.updateExpiry(params.token, body.expiresAt, actor) };
    },
    delete: async ({ params, req }) => {
      const actor = access.assert(req, permissions.deleteApiToken);
      await apiTokens.delete(params.token, actor);
      return { status: 200, body: undefined };
    },
  });
  return router;
}
