import express, { type Request, type Router } from "express";
import { adminContract } from "@vexil/contracts";
import { mountContract } from "@vexil/http";
import type { AccessService } from "../access/access-service.js";
import { permissions } from "../access/permissions.js";
import type { SegmentService } from "./segment-service.js";

// ts-rest types `req.params` with the parsed (numeric) id, which express's Request does not accept.
const asRequest = (req: unknown) => req as Request;

export function segmentRoutes({ segments, access }: { segments: SegmentService; access: AccessService }): Router {
  const router = express.Router();
  mountContract(router, adminContract.segments, {
    list: async ({ req }) => {
      access.assert(req, permissions.read);
      return { status: 200, body: { segments: await segments.list() } };
    },
    listForProject: async ({ params, req }) => {
      access.assert(req, permissions.read, { project: params.projectId });
      return { status: 200, body: { segments: await segments.listForProject(params.projectId) } };
    },
    create: async ({ body, req, res }) => {
      const actor = access.assert(req, permissions.createSegment, { project: body.project ?? undefined });
      const created = await segments.create(body, actor);
      res.setHeader("location", `segments/${created.id}`);
      return { status: 201, body: created };
    },
    validateName: async ({ body, req }) => {
      access.assert(req, permissions.createSegment);
      await segments.validateName(body.name);
      return { status: 204, body: undefined };
    },
    get: async ({ params, req }) => {
      access.assert(asRequest(req), permissions.read);
      return { status: 200, body: await segments.get(params.id) };
    },
    strategies: async ({ params, req }) => {
      access.assert(asRequest(req), permissions.read);
      return { status: 200, body: await segments.strategiesUsing(params.id) };
    },
    update: async ({ params, body, req }) => {
      const actor = access.assert(asRequest(req), permissions.updateSegment, { project: body.project ?? undefined });
      await segments.update(params.id, body, actor);
      return { status: 204, body: undefined };
    },
    delete: async ({ params, req }) => {
      const actor = access.assert(asRequest(req), permissions.deleteSegment);
      await segments.delete(params.id, actor);
      return { status: 204, body: undefined };
    },
  });
  return router;
}
