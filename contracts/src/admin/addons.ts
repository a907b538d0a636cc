import { permissions, requires } from "../route-access.js";
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
      metadata: requires(permissions.admin),
      summary: "List addon configurations and the providers they can use",
      description:
        "The configured addons (webhook, Slack, Teams, Datadog, New Relic) and the provider definitions with the parameters and events each accepts.",
      responses: { 200: addonListSchema, ...errorResponses(401, 403) },
    },
    create: {
      method: "POST",
      path: "/addons",
      summary: "Create an addon configuration",
      description:
        "Configures an addon: which `provider`, its `parameters` (e.g. the webhook URL), which event types it forwards, optionally narrowed to projects and environments. Delivery happens in addon-delivery, with retries; URLs to private addresses are refused unless ADDONS_ALLOW_PRIVATE_URLS is set.",
      metadata: {
        ...requires(permissions.createAddon),
        requestExample: {
          provider: "webhook",
          description: "Audit trail",
          enabled: true,
          parameters: { url: "https://hooks.example.com/vexil" },
          events: ["feature-created", "feature-environment-enabled"],
          projects: ["default"],
          environments: ["production"],
        },
      },
      body: addonRequestSchema,
      responses: { 200: addonSchema, ...errorResponses(400, 401, 403, 413, 415) },
    },
    get: {
      method: "GET",
      path: "/addons/:id",
      metadata: requires(permissions.admin),
      summary: "Get an addon configuration",
      description: "One addon configuration; sensitive parameters (tokens, URLs with credentials) are masked.",
      pathParams: addonIdParamsSchema,
      responses: { 200: addonSchema, ...errorResponses(400, 401, 403, 404) },
    },
    // A sensitive parameter sent back as the mask keeps its stored value.
    update: {
      method: "PUT",
      path: "/addons/:id",
      summary: "Update an addon configuration",
      description: "Replaces an addon configuration. Masked parameters sent back unchanged keep their stored value.",
      metadata: {
        ...requires(permissions.updateAddon),
        requestExample: {
          provider: "webhook",
          description: "Audit trail",
          enabled: false,
          parameters: { url: "https://hooks.example.com/vexil" },
          events: ["feature-created"],
        },
      },
      pathParams: addonIdParamsSchema,
      body: addonRequestSchema,
      responses: { 200: addonSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    remove: {
      method: "DELETE",
      path: "/addons/:id",
      metadata: requires(permissions.deleteAddon),
      summary: "Delete an addon configuration",
      description: "Deletes an addon configuration; deliveries not yet made for it are dropped.",
      pathParams: addonIdParamsSchema,
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    events: {
      method: "GET",
      path: "/addons/:id/events",
      metadata: requires(permissions.admin),
      summary: "Delivery log of an addon: one entry per attempt, newest first",
      description:
        "The addon's delivery log: one entry per attempt with the event, the HTTP status or error, and whether it will be retried.",
      pathParams: addonIdParamsSchema,
      query: integrationEventsQuerySchema,
      responses: { 200: integrationEventsSchema, ...errorResponses(400, 401, 403, 404) },
    },
  },
  routerOptions,
);
