import { c, errorResponses, routerOptions } from "../common.js";
import { addonListSchema, addonRequestSchema, addonSchema } from "../schemas/index.js";

export const addonsContract = c.router(
  {
    list: {
      method: "GET",
      path: "/addons",
      summary: "List addon configurations",
      responses: { 200: addonListSchema, ...errorResponses(401, 403) },
    },
    create: {
      method: "POST",
      path: "/addons",
      summary: "Create an addon configuration",
      body: addonRequestSchema,
      responses: { 200: addonSchema, ...errorResponses(400, 401, 403, 413, 415) },
    },
  },
  routerOptions,
);
