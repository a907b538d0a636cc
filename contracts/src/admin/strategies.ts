import { c, errorResponses, routerOptions } from "../common.js";
import { strategyDefinitionSchema, strategyListSchema } from "../schemas/index.js";

export const strategiesContract = c.router(
  {
    list: {
      method: "GET",
      path: "/strategies",
      summary: "List strategy definitions",
      responses: { 200: strategyListSchema, ...errorResponses(401) },
    },
    get: {
      method: "GET",
      path: "/strategies/:name",
      summary: "Get a strategy definition",
      responses: { 200: strategyDefinitionSchema, ...errorResponses(401, 404) },
    },
  },
  routerOptions,
);
