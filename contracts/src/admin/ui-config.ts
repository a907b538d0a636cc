import { c, errorResponses, routerOptions } from "../common.js";
import { uiConfigSchema } from "../schemas/index.js";

export const uiConfigContract = c.router(
  {
    get: {
      method: "GET",
      path: "/ui-config",
      summary: "What this server is and which capabilities it has",
      responses: { 200: uiConfigSchema, ...errorResponses(401, 403) },
    },
  },
  routerOptions,
);
