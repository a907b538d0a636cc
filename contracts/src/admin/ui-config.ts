import { permissions, requires } from "../route-access.js";
import { c, errorResponses, routerOptions } from "../common.js";
import { uiConfigSchema } from "../schemas/index.js";

export const uiConfigContract = c.router(
  {
    get: {
      method: "GET",
      path: "/ui-config",
      metadata: requires(permissions.read),
      summary: "What this server is and which capabilities it has",
      description:
        "The server's name, version and capabilities (enabled features, limits such as the segment values limit, authentication), as the Unleash admin UI reads them.",
      responses: { 200: uiConfigSchema, ...errorResponses(401, 403) },
    },
  },
  routerOptions,
);
