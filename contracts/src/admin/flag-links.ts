import { z } from "zod";
import { permissions, requires } from "../route-access.js";
import { c, errorResponses, routerOptions } from "../common.js";
import { flagLinkBodySchema } from "../schemas/index.js";

const links = "/projects/:projectId/features/:featureName/link";

/** URLs on a flag (Unleash 7+'s feature links), on Unleash's paths; the flag's answer lists them as `links`. */
export const flagLinksContract = c.router(
  {
    create: {
      method: "POST",
      path: links,
      summary: "Add a link to a flag",
      description:
        "Adds a URL (an issue, a pull request, a dashboard) to the flag, at most 10 per flag. The URL is normalized as Unleash " +
        "normalizes it (`example.com` becomes `https://example.com`); only http and https URLs are accepted. The flag's " +
        "answer (`GET .../features/:featureName`) lists its links, oldest first.",
      metadata: {
        ...requires(permissions.updateFeature, { project: "params.projectId" }),
        requestExample: { url: "https://github.com/acme/shop/issues/42", title: "Rollout plan" },
      },
      body: flagLinkBodySchema,
      responses: { 204: c.noBody(), ...errorResponses(400, 401, 403, 404, 415) },
    },
    update: {
      method: "PUT",
      path: `${links}/:linkId`,
      pathParams: z.object({ projectId: z.string(), featureName: z.string(), linkId: z.string() }),
      summary: "Change a link of a flag",
      description: "Replaces the link's URL and title.",
      metadata: {
        ...requires(permissions.updateFeature, { project: "params.projectId" }),
        requestExample: { url: "https://github.com/acme/shop/pull/43", title: "Rollout" },
      },
      body: flagLinkBodySchema,
      responses: { 204: c.noBody(), ...errorResponses(400, 401, 403, 404, 415) },
    },
    remove: {
      method: "DELETE",
      path: `${links}/:linkId`,
      metadata: requires(permissions.updateFeature, { project: "params.projectId" }),
      pathParams: z.object({ projectId: z.string(), featureName: z.string(), linkId: z.string() }),
      summary: "Remove a link from a flag",
      description: "Removes the link.",
      body: c.noBody(),
      responses: { 204: c.noBody(), ...errorResponses(401, 403, 404) },
    },
  },
  routerOptions,
);
