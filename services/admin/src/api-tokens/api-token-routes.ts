import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import type { ApiTokenService } from "./api-token-service.js";

export function apiTokenRoutes({ apiTokens, access }: { apiTokens: ApiTokenService; access: AccessService }): Router {
  const router = express.Router();
  mountGuardedContract(
    router,
    adminContract.apiTokens,
    { access },
    {
      list: async () => {
        return { status: 200, body: { tokens: await apiTokens.list() } };
      },
      create: async ({ body, actor }) => {
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
      getByName: async ({ params }) => {
        return { status: 200, body: { tokens: await apiTokens.listByName(params.name) } };
      },
      update: async ({ params, body, actor }) => {
        return { status: 200, body: await apiTokens.updateExpiry(params.token, body.expiresAt, actor) };
      },
      delete: async ({ params, actor }) => {
        await apiTokens.delete(params.token, actor);
        return { status: 200, body: undefined };
      },
    },
  );
  return router;
}
