import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import type { SegmentService } from "./segment-service.js";

export function segmentRoutes({ segments, access }: { segments: SegmentService; access: AccessService }): Router {
  const router = express.Router();
  mountGuardedContract(
    router,
    adminContract.segments,
    { access },
    {
      list: async () => {
        return { status: 200, body: { segments: await segments.list() } };
      },
      listForProject: async ({ params }) => {
        return { status: 200, body: { segments: await segments.listForProject(params.projectId) } };
      },
      create: async ({ body, res, actor }) => {
        const created = await segments.create(body, actor);
        res.setHeader("location", `segments/${created.id}`);
        return { status: 201, body: created };
      },
      validateName: async ({ body }) => {
        await segments.validateName(body.name);
        return { status: 204, body: undefined };
      },
      get: async ({ params }) => {
        return { status: 200, body: await segments.get(params.id) };
      },
      strategies: async ({ params }) => {
        return { status: 200, body: await segments.strategiesUsing(params.id) };
      },
      update: async ({ params, body, actor }) => {
        await segments.update(params.id, body, actor);
        return { status: 204, body: undefined };
      },
      delete: async ({ params, actor }) => {
        await segments.delete(params.id, actor);
        return { status: 204, body: undefined };
      },
    },
  );
  return router;
}
