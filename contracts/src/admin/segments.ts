import { z } from "zod";
import { permissions, requires } from "../route-access.js";
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
      metadata: requires(permissions.read),
      summary: "List segments",
      description: "Every segment with its constraints and how many flags and projects use it.",
      responses: { 200: segmentListSchema, ...errorResponses(401, 403) },
    },
    create: {
      method: "POST",
      path: "/segments",
      summary: "Create a segment",
      description:
        "Creates a reusable list of constraints that strategies can include by id. A segment with a `project` can only be used in that project; UNLEASH_SEGMENT_VALUES_LIMIT caps its constraint values.",
      body: segmentUpsertSchema,
      metadata: {
        ...requires(permissions.createSegment, { project: "body.project" }),
        ...locationHeader,
        requestExample: {
          name: "beta-testers",
          description: "Users in the beta programme",
          project: null,
          constraints: [{ contextName: "userId", operator: "IN", values: ["alice", "bob"] }],
        },
      },
      responses: { 201: segmentSchema, ...errorResponses(400, 401, 403, 409, 415) },
    },
    validateName: {
      method: "POST",
      path: "/segments/validate",
      summary: "Check that a segment name is free",
      description: "Answers 204 when no segment has this name yet, 409 otherwise.",
      metadata: { ...requires(permissions.createSegment), requestExample: { name: "beta-testers" } },
      body: segmentNameBodySchema,
      responses: { 204: c.noBody(), ...errorResponses(400, 401, 403, 409, 415) },
    },
    get: {
      method: "GET",
      path: "/segments/:id",
      metadata: requires(permissions.read),
      summary: "Get a segment",
      description: "One segment with its constraints.",
      pathParams: segmentIdParamsSchema,
      responses: { 200: segmentSchema, ...errorResponses(400, 401, 403, 404) },
    },
    // Absent `project` becomes null; other unspecified fields are left untouched.
    update: {
      method: "PUT",
      path: "/segments/:id",
      summary: "Update a segment",
      description:
        "Replaces a segment's name, description, project and constraints; every strategy using it evaluates with the new constraints. Moving it into a project is refused while flags of other projects use it.",
      metadata: {
        ...requires(permissions.updateSegment, { project: "body.project" }),
        requestExample: {
          name: "beta-testers",
          description: "Users in the beta programme",
          constraints: [{ contextName: "userId", operator: "IN", values: ["alice", "bob", "carol"] }],
        },
      },
      pathParams: segmentIdParamsSchema,
      body: segmentUpsertSchema,
      responses: { 204: c.noBody(), ...errorResponses(400, 401, 403, 404, 409, 415) },
    },
    // Refused with 409 while a strategy uses the segment.
    delete: {
      method: "DELETE",
      path: "/segments/:id",
      metadata: requires(permissions.deleteSegment),
      summary: "Delete a segment",
      description: "Deletes a segment that no strategy (of live or archived flags, or proposed in a change request) uses.",
      pathParams: segmentIdParamsSchema,
      body: c.noBody(),
      responses: { 204: c.noBody(), ...errorResponses(400, 401, 403, 404, 409) },
    },
    strategies: {
      method: "GET",
      path: "/segments/:id/strategies",
      metadata: requires(permissions.read),
      summary: "List the strategies that use a segment",
      description:
        "The strategies that use the segment, with their flag, project and environment, including strategies proposed in open change requests.",
      pathParams: segmentIdParamsSchema,
      responses: { 200: segmentStrategiesSchema, ...errorResponses(400, 401, 403, 404) },
    },
    // Segments a project's strategies may use: the global ones and the project's own.
    listForProject: {
      method: "GET",
      path: "/projects/:projectId/segments",
      metadata: requires(permissions.read, { project: "params.projectId" }),
      summary: "List the segments available in a project",
      description: "The segments a strategy of this project may use: the global ones and the project's own.",
      pathParams: z.object({ projectId: z.string() }),
      responses: { 200: segmentListSchema, ...errorResponses(401, 403, 404) },
    },
  },
  routerOptions,
);
