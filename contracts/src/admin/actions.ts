import { z } from "zod";
import { permissions, requires } from "../route-access.js";
import { c, errorResponses, routerOptions } from "../common.js";
import { actionSetEventListSchema, actionSetInputSchema, actionSetListSchema, actionSetSchema, pageQuerySchema } from "../schemas/index.js";

const projectParams = z.object({ projectId: z.string().min(1) });
const actionSetParams = z.object({ projectId: z.string().min(1), id: z.coerce.number().int().positive() });

/** Unleash's action set routes: project-scoped, run as a service account when a signal matches. */
export const actionsContract = c.router(
  {
    list: {
      method: "GET",
      path: "/projects/:projectId/actions",
      metadata: requires(permissions.read, { project: "params.projectId" }),
      summary: "List a project's action sets",
      description: "Every action set of the project with its match filter, its actions and whether it is enabled.",
      pathParams: projectParams,
      responses: { 200: actionSetListSchema, ...errorResponses(401, 403, 404) },
    },
    create: {
      method: "POST",
      path: "/projects/:projectId/actions",
      summary: "Create an action set",
      description:
        "Creates an action set that watches one signal endpoint: when a signal's payload matches every filter in `match.payload`, its actions run in order as the service account `actorId`. Refused with 400 when the endpoint, the service account or a flag named in the actions does not exist.",
      metadata: {
        ...requires(permissions.admin, { project: "params.projectId" }),
        requestExample: {
          name: "Turn off checkout on alert",
          description: "Kill switch for incidents",
          enabled: true,
          actorId: 2,
          match: { source: "signal-endpoint", sourceId: 1, payload: { "alert.status": { operator: "IN", values: ["firing"] } } },
          actions: [
            {
              action: "TOGGLE_FEATURE_OFF",
              sortOrder: 1,
              executionParams: { project: "default", featureName: "new-checkout", environment: "production" },
            },
          ],
        },
      },
      pathParams: projectParams,
      body: actionSetInputSchema,
      responses: { 201: actionSetSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    update: {
      method: "PUT",
      path: "/projects/:projectId/actions/:id",
      summary: "Replace an action set",
      description:
        "Replaces an action set: name, description, service account, match filter and the whole action list. The same checks as on creation apply.",
      metadata: {
        ...requires(permissions.admin, { project: "params.projectId" }),
        requestExample: {
          name: "Turn checkout back on",
          enabled: true,
          actorId: 2,
          match: { source: "signal-endpoint", sourceId: 1, payload: { "alert.status": { operator: "IN", values: ["resolved"] } } },
          actions: [
            {
              action: "TOGGLE_FEATURE_ON",
              sortOrder: 1,
              executionParams: { project: "default", featureName: "new-checkout", environment: "production" },
            },
          ],
        },
      },
      pathParams: actionSetParams,
      body: actionSetInputSchema,
      responses: { 200: actionSetSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    delete: {
      method: "DELETE",
      path: "/projects/:projectId/actions/:id",
      metadata: requires(permissions.admin, { project: "params.projectId" }),
      summary: "Delete an action set",
      description: "Deletes an action set; its past executions are deleted with it.",
      pathParams: actionSetParams,
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    enable: {
      method: "POST",
      path: "/projects/:projectId/actions/:id/on",
      metadata: requires(permissions.admin, { project: "params.projectId" }),
      summary: "Enable an action set",
      description: "Turns an action set on: signals received from now on are matched against it.",
      pathParams: actionSetParams,
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    disable: {
      method: "POST",
      path: "/projects/:projectId/actions/:id/off",
      metadata: requires(permissions.admin, { project: "params.projectId" }),
      summary: "Disable an action set",
      description: "Turns an action set off: signals keep arriving but run none of its actions.",
      pathParams: actionSetParams,
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    events: {
      method: "GET",
      path: "/projects/:projectId/actions/:id/events",
      metadata: requires(permissions.read, { project: "params.projectId" }),
      summary: "What the action set did with each signal it matched, newest first",
      description:
        "One entry per signal the action set matched: the signal, the state of the run (success or failed) and, for a failure, which action failed and why.",
      pathParams: actionSetParams,
      query: pageQuerySchema,
      responses: { 200: actionSetEventListSchema, ...errorResponses(400, 401, 403, 404) },
    },
  },
  routerOptions,
);
