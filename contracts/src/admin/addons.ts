import { c, errorResponses, routerOptions } from "../common.js";
import {
  addonIdParamsSchema,
  addonListSchema,
  addonRequestSchema,
  addonSchema,
  integrationEventsQuerySchema,
  integrationEventsSchema,
} from "../schemas/index.js";

export const addonsContract = c.router(
  {
    list: {
      method: "GET",
      path: "/addons",
      summary: "List addon configurations and the providers they can use",
      responses: { 200: addonListSchema, ...errorResponses(401, 403) },
    },
    create: {
      method: "POST",
      path: "/addons",
      summary: "Create an addon configuration",
      body: addonRequestSchema,
      responses: { 200: addonSchema, ...errorResponses(400, 401, 403, 413, 415) },
    },
    get: {
      method: "GET",
      path: "/addons/:id",
      summary: "Get an addon configuration",
      pathParams: addonIdParamsSchema,
      responses: { 200: addonSchema, ...errorResponses(400, 401, 403, 404) },
    },
    // A sensitive parameter sent back as the mask keeps its stored value.
    update: {
      method: "PUT",
      path: "/addons/:id",
      summary: "Update an addon configuration",
      pathParams: addonIdParamsSchema,
      body: addonRequestSchema,
      responses: { 200: addonSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    remove: {
      method: "DELETE",
      path: "/addons/:id",
      summary: "Delete an addon configuration",
      pathParams: addonIdParamsSchema,
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    events: {
      method: "GET",
      path: "/addons/:id/events",
      summary: "Delivery log of an addon: one entry per attempt, newest first",
      pathParams: addonIdParamsSchema,
      query: integrationEventsQuerySchema,
      responses: { 200: integrationEventsSchema, ...errorResponses(400, 401, 403, 404) },
    },
  },
  routerOptions,
);
