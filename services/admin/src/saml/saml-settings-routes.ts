import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import { mountContract } from "@vexil/http";
import type { AccessService } from "../access/access-service.js";
import { permissions } from "../access/permissions.js";
import type { SamlSettingsService } from "./saml-settings-service.js";

export function samlSettingsRoutes({ saml, access }: { saml: SamlSettingsService; access: AccessService }): Router {
  const router = express.Router();
  mountContract(router, adminContract.saml, {
    getSettings: async ({ req }) => {
      access.assert(req, permissions.admin);
      return { status: 200, body: await saml.get() };
    },
    updateSettings: async ({ body, req }) => {
      const actor = access.assert(req, permissions.admin);
      return { status: 200, body: await saml.update(body, actor) };
    },
  });
  return router;
}
