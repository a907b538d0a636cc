import { z } from "zod";
import { c, dateTimeSchema, errorResponses, routerOptions } from "../common.js";
import { constraintOperatorSchema } from "../schemas/constraint.js";
import { signalSchema } from "./signals.js";

/**
 * Actions (Unleash Enterprise, beta): project-scoped action sets that react to signals. An action
 * set matches signals from one source by filtering their payload with constraint operators, and
 * runs its actions as a service account.
 */

/** Unleash's action names; both need UPDATE_FEATURE_ENVIRONMENT. */
export const actionNames = ["TOGGLE_FEATURE_ON", "TOGGLE_FEATURE_OFF"] as const;
export const actionNameSchema = z.enum(actionNames);
export type ActionName = z.infer<typeof actionNameSchema>;

/** A constraint without its context name: the payload path it applies to is the key. */
export const parameterMatchSchema = z
  .object({
    operator: constraintOperatorSchema,
    inverted: z.boolean().optional(),
    caseInsensitive: z.boolean().optional(),
    value: z.string().optional(),
    values: z.array(z.string()).optional(),
  })
  .strict();
export type ParameterMatch = z.infer<typeof parameterMatchSchema>;

export const actionMatchSchema = z
  .object({
    source: z.literal("signal-endpoint"),
    sourceId: z.number().int().positive(),
    /** Payload path (dots walk into objects, e.g. `alert.status`) to the condition it must meet. */
    payload: z.record(z.string().min(1), parameterMatchSchema).default({}),
  })
  .strict();
export type ActionMatch = z.infer<typeof actionMatchSchema>;

export const executionParamsSchema = z
  .object({
    project: z.string().min(1),
    featureName: z.string().min(1),
    environment: z.string().min(1),
  })
  .strict();

export const actionInputSchema = z
  .object({
    action: actionNameSchema,
    sortOrder: z.number().int(),
    executionParams: executionParamsSchema,
  })
  .strict();
export type ActionInput = z.infer<typeof actionInputSchema>;

export const actionSchema = actionInputSchema.extend({
  id: z.number().int(),
  createdAt: dateTimeSchema,
  createdByUserId: z.number().int(),
});

export const actionSetInputSchema = z
  .object({
    name: z.string().trim().min(1).max(255),
    description: z.string().max(1000).nullable().optional(),
    enabled: z.boolean().default(true),
    /** The service account the actions run as. */
    actorId: z.number().int().positive(),
    match: actionMatchSchema,
    actions: z.array(actionInputSchema).min(1, "An action set needs at least one action"),
  })
  .strict();
export type ActionSetInput = z.infer<typeof actionSetInputSchema>;

export const actionSetSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string().nullable(),
  project: z.string(),
  enabled: z.boolean(),
  actorId: z.number().int(),
  match: actionMatchSchema,
  actions: z.array(actionSchema),
  createdAt: dateTimeSchema,
  createdByUserId: z.number().int(),
});
export type ActionSet = z.infer<typeof actionSetSchema>;

export const actionSetStateSchema = z.enum(["started", "success", "failed"]);
export type ActionSetState = z.infer<typeof actionSetStateSchema>;

/** What one run of an action set did with one signal. */
export const actionSetEventSchema = z.object({
  id: z.number().int(),
  actionSetId: z.number().int(),
  signalId: z.number().int(),
  createdAt: dateTimeSchema,
  state: actionSetStateSchema,
  signal: signalSchema,
  actionSet: actionSetSchema.extend({
    actions: z.array(
      actionSchema.extend({
        state: z.enum(["not started", "started", "success", "failed"]),
        details: z.string().optional(),
      }),
    ),
  }),
});
export type ActionSetEvent = z.infer<typeof actionSetEventSchema>;

const projectParams = z.object({ projectId: z.string().min(1) });
const actionSetParams = z.object({ projectId: z.string().min(1), id: z.coerce.number().int().positive() });

export const actionsContract = c.router(
  {
    list: {
      method: "GET",
      path: "/projects/:projectId/actions",
      summary: "List a project's action sets",
      description: "Every action set of the project with its match filter, its actions and whether it is enabled.",
      pathParams: projectParams,
      responses: { 200: z.object({ actions: z.array(actionSetSchema) }), ...errorResponses(401, 403, 404) },
    },
    create: {
      method: "POST",
      path: "/projects/:projectId/actions",
      summary: "Create an action set",
      description:
        "Creates an action set that watches one signal endpoint: when a signal's payload matches every filter in `match.payload`, its actions run in order as the service account `actorId`. Refused with 400 when the endpoint, the service account or a flag named in the actions does not exist.",
      metadata: {
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
      summary: "Delete an action set",
      description: "Deletes an action set; its past executions are deleted with it.",
      pathParams: actionSetParams,
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    enable: {
      method: "POST",
      path: "/projects/:projectId/actions/:id/on",
      summary: "Enable an action set",
      description: "Turns an action set on: signals received from now on are matched against it.",
      pathParams: actionSetParams,
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    disable: {
      method: "POST",
      path: "/projects/:projectId/actions/:id/off",
      summary: "Disable an action set",
      description: "Turns an action set off: signals keep arriving but run none of its actions.",
      pathParams: actionSetParams,
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    events: {
      method: "GET",
      path: "/projects/:projectId/actions/:id/events",
      summary: "What the action set did with each signal it matched, newest first",
      description:
        "One entry per signal the action set matched: the signal, the state of the run (success or failed) and, for a failure, which action failed and why.",
      pathParams: actionSetParams,
      query: z.object({
        limit: z.coerce.number().int().min(1).max(1000).default(50),
        offset: z.coerce.number().int().min(0).default(0),
      }),
      responses: { 200: z.object({ actionSetEvents: z.array(actionSetEventSchema) }), ...errorResponses(400, 401, 403, 404) },
    },
  },
  routerOptions,
);
