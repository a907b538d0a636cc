import { c, errorResponses, locationHeader, routerOptions } from "../common.js";
import { createTagBodySchema, createTagResponseSchema } from "../schemas/index.js";

export const tagsContract = c.router(
  {
    create: {
      method: "POST",
      path: "/tags",
      summary: "Create a tag",
      body: createTagBodySchema,
      metadata: locationHeader,
      responses: { 201: createTagResponseSchema, ...errorResponses(400, 401, 403, 409, 415) },
    },
  },
  routerOptions,
);
