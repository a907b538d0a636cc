import { c, errorResponses, routerOptions } from "../common.js";
import { apiTokenListSchema } from "../schemas/index.js";

export const apiTokensContract = c.router(
  {
    getByName: {
      method: "GET",
      path: "/api-tokens/:name",
      summary: "List the API tokens with this name (names are not unique)",
      responses: { 200: apiTokenListSchema, ...errorResponses(401, 403) },
    },
  },
  routerOptions,
);
