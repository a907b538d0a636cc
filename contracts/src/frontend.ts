import { c, errorResponses, routerOptions } from "./common.js";
import { frontendContextQuerySchema, frontendResultSchema } from "./schemas/index.js";

/** `/api/frontend`: the features enabled for the context given in the query string. */
export const frontendContract = c.router(
  {
    getFeatures: {
      method: "GET",
      path: "",
      summary: "Features enabled for a context",
      query: frontendContextQuerySchema,
      // 404 when the frontend API is disabled.
      responses: { 200: frontendResultSchema, ...errorResponses(401, 404) },
    },
  },
  { ...routerOptions, pathPrefix: "/api/frontend" },
);
export type FrontendContract = typeof frontendContract;
