import { c, errorResponses, locationHeader, routerOptions } from "../common.js";
import { segmentIdParamsSchema, segmentListSchema, segmentSchema, segmentUpsertSchema } from "../schemas/index.js";

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
    // Absent `project` becomes null; other unspecified fields are left untouched.
    update: {
      method: "PUT",
      path: "/segments/:id",
      summary: "Update a segment",
      pathParams: segmentIdParamsSchema,
      body: segmentUpsertSchema,
      responses: { 204: c.noBody(), ...errorResponses(400, 401, 403, 409, 415) },
    },
  },
  routerOptions,
);
