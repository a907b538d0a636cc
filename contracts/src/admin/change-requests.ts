import { c, routerOptions } from "../common.js";
import { changeRequestBodySchema, changeRequestSchema } from "../schemas/index.js";

export const changeRequestsContract = c.router(
  {
    // Adds the changes to the caller's open change request for this project and environment,
    // creating one if there is none. The spec lists no error statuses for this endpoint.
    addChanges: {
      method: "POST",
      path: "/projects/:projectId/environments/:environment/change-requests",
      summary: "Add changes to a change request",
      body: changeRequestBodySchema,
      responses: { 200: changeRequestSchema },
    },
  },
  routerOptions,
);
