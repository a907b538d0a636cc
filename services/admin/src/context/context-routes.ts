import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import { mountContract } from "@vexil/http";
import type { AccessService } from "../access/access-service.js";
import { permissions } from "../access/permissions.js";
import type { ContextService } from "./context-service.js";

export function contextRoutes({ context, access }: { context: ContextService; access: AccessService }): Router {
  const router = express.Router();
  mountContract(router, adminContract.context, {
    list: async ({ req }) => {
      access.assert(req, permissions.read);
      return { status: 200, body: await context.list() };
    },
    get: async ({ params, req }) => {
      access.assert(req, permissions.read);
      return { status: 200, body: await context.get(params.name) };
    },
    create: async ({ body, req, res }) => {
      const actor = access.assert(req, permissions.createContextField);
      const created = await context.create(body, actor);
      res.setHeader("location", `context/${encodeURIComponent(created.name)}`);
      return { status: 201, body: created };
    },
    validateName: async ({ body, req }) => {
      access.assert(req, permissions.createContextField);
      await context.validateName(body.name);
      return { status: 200, body: undefined };
    },
    update: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.updateContextField);
      await context.update(params.name, body, actor);
      return { status: 200, body: undefined };
    },
    delete: async ({ params, req }) => {
      const actor = access.assert(req, permissions.deleteContextField);
      await context.delete(params.name, actor);
      return { status: 200, body: undefined };
    },
  });
  return router;
}
