import { z } from "zod";
import { c, errorResponses, locationHeader, routerOptions } from "../common.js";
import {
  segmentIdParamsSchema,
  segmentListSchema,
  segmentNameBodySchema,
  segmentSchema,
  segmentStrategiesSchema,
  segmentUpsertSchema,
} from "../schemas/index.js";

export const segmentsContract = c.router(
  {
    list: {
      method: "GET",
      path: "/segments",
      summary: "List segments",
      responses: { 200: segmentListSchema, ...errorResponses(401, 403) },
    },
    create: {
      method: "POST",
      path: "/segments",
      summary: "Create a segment",
      body: segmentUpsertSchema,
      metadata: locationHeader,
      responses: { 201: segmentSchema, ...errorResponses(400, 401, 403, 409, 415) },
    },
    validateName: {
      method: "POST",
      path: "/segments/validate",
      summary: "Check that a segment name is free",
      body: segmentNameBodySchema,
      responses: { 204: c.noBody(), ...errorResponses(400, 401, 403, 409, 415) },
    },
    get: {
      method: "GET",
      path: "/segments/:id",
      summary: "Get a segment",
      pathParams: segmentIdParamsSchema,
      responses: { 200: segmentSchema, ...errorResponses(400, 401, 403, 404) },
    },
    // Absent `project` becomes null; other unspecified fields are left untouched.
    update: {
      method: "PUT",
      path: "/segments/:id",
      summary: "Update a segment",
      pathParams: segmentIdParamsSchema,
      body: segmentUpsertSchema,
      responses: { 204: c.noBody(), ...errorResponses(400, 401, 403, 404, 409, 415) },
    },
    // Refused with 409 while a strategy uses the segment.
    delete: {
      method: "DELETE",
      path: "/segments/:id",
      summary: "Delete a segment",
      pathParams: segmentIdParamsSchema,
      body: c.noBody(),
      responses: { 204: c.noBody(), ...errorResponses(400, 401, 403, 404, 409) },
    },
    strategies: {
      method: "GET",
      path: "/segments/:id/strategies",
      summary: "List the strategies that use a segment",
      pathParams: segmentIdParamsSchema,
      responses: { 200: segmentStrategiesSchema, ...errorResponses(400, 401, 403, 404) },
    },
    // Segments a project's strategies may use: the global ones and the project's own.
    listForProject: {
      method: "GET",
      path: "/projects/:projectId/segments",
      summary: "List the segments available in a project",
      pathParams: z.object({ projectId: z.string() }),
      responses: { 200: segmentListSchema, ...errorResponses(401, 403, 404) },
    },
  },
  routerOptions,
);
