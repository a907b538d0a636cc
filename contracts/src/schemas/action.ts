import { z } from "zod";
import { dateTimeSchema } from "../common.js";
import { constraintOperatorSchema } from "./constraint.js";
import { signalSchema } from "./signal.js";

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
export const actionSetListSchema = z.object({ actions: z.array(actionSetSchema) });
export const actionSetEventListSchema = z.object({ actionSetEvents: z.array(actionSetEventSchema) });
