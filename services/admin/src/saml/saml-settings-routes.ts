import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import type { SamlSettingsService } from "./saml-settings-service.js";

export function samlSettingsRoutes({ saml, access }: { saml: SamlSettingsService; access: AccessService }): Router {
  const router = express.Router();
  mountGuardedContract(
    router,
    adminContract.saml,
    { access },
    {
      getSettings: async () => {
        return { status: 200, body: await saml.get() };
      },
      updateSettings: async ({ body, actor }) => {
        return { status: 200, body: await saml.update(body, actor) };
      },
    },
  );
  return router;
}
