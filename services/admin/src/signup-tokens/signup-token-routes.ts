import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import type { SignupTokenService } from "./signup-token-service.js";

/** Invite links hand out accounts, so managing them is Admin-only as in Unleash. */
export function signupTokenRoutes({ signupTokens, access }: { signupTokens: SignupTokenService; access: AccessService }): Router {
  const router = express.Router();
  mountGuardedContract(
    router,
    adminContract.inviteLinks,
    { access },
    {
      list: async () => {
        return { status: 200, body: { tokens: await signupTokens.list() } };
      },
      create: async ({ body, res, actor }) => {
        const token = await signupTokens.create(body, actor);
        res.setHeader("location", `api/admin/invite-link/tokens/${token.secret}`);
        return { status: 201, body: token };
      },
      get: async ({ params }) => {
        return { status: 200, body: await signupTokens.get(params.token) };
      },
      update: async ({ params, body, actor }) => {
        return { status: 200, body: await signupTokens.update(params.token, body, actor) };
      },
    },
  );
  return router;
}
