import { z } from "zod";
import { dateTimeSchema } from "../common.js";
import { constraintSchema } from "./constraint.js";
import { segmentUpsertSchema } from "./segment.js";
import { checkStrategyPercentage, strategyParametersSchema, strategyFieldsSchema } from "./strategy.js";
import { featureVariantListSchema, strategyVariantSchema } from "./variant.js";

// ---- POST .../environments/:environment/change-requests input: one change or an array of changes, discriminated by `action`. ----

const featureChange = { feature: z.string().min(1) };

/** addStrategy payload: constraints and parameters are required here, unlike a plain strategy write. */
export const addStrategyPayloadSchema = z
  .object({
    name: z.string().min(1),
    title: z.string().nullable().optional(),
    disabled: z.boolean().nullable().optional(),
    sortOrder: z.number().int("Must be a whole number").optional(),
    constraints: z.array(constraintSchema),
    variants: z.array(strategyVariantSchema).optional(),
    parameters: strategyParametersSchema,
    segments: z.array(z.number().int()).optional(),
  })
  // Proposed strategies pass the same range checks as direct writes: applying must not store what a write refuses.
  .superRefine(checkStrategyPercentage);

export const changeRequestChangeSchema = z.discriminatedUnion("action", [
  z.object({
    action: z.literal("updateSegment"),
    payload: segmentUpsertSchema.extend({ id: z.number().int() }),
  }),
  z.object({
    action: z.literal("deleteSegment"),
    payload: z.object({ id: z.number().int() }),
  }),
  z.object({
    action: z.literal("updateEnabled"),
    ...featureChange,
    payload: z.object({
      enabled: z.boolean(),
      /** Only relevant when every strategy is disabled: true enables them, false adds the default strategy. */
      shouldActivateDisabledStrategies: z.boolean().optional(),
    }),
  }),
  z.object({
    action: z.literal("addStrategy"),
    ...featureChange,
    payload: addStrategyPayloadSchema,
  }),
  z.object({
    action: z.literal("updateStrategy"),
    ...featureChange,
    payload: strategyFieldsSchema.extend({ id: z.string().min(1) }).superRefine(checkStrategyPercentage),
  }),
  z.object({
    action: z.literal("deleteStrategy"),
    ...featureChange,
    payload: z.object({ id: z.string().min(1) }),
  }),
  z.object({ action: z.literal("archiveFeature"), ...featureChange }),
  z.object({
    action: z.literal("patchVariant"),
    ...featureChange,
    payload: z.object({ variants: featureVariantListSchema }),
  }),
  z.object({
    action: z.literal("reorderStrategy"),
    ...featureChange,
    payload: z.array(z.object({ id: z.string().min(1), sortOrder: z.number().int("Must be a whole number") })),
  }),
  z.object({
    action: z.literal("addDependency"),
    ...featureChange,
    payload: z.object({
      feature: z.string().min(1),
      /** When false the variants are ignored. */
      enabled: z.boolean().default(true),
      /** Empty checks only `enabled`. */
      variants: z.array(z.string()).optional(),
    }),
  }),
  z.object({ action: z.literal("deleteDependency"), ...featureChange }),
]);
export type ChangeRequestChange = z.infer<typeof changeRequestChangeSchema>;
export type ChangeRequestAction = ChangeRequestChange["action"];
export const changeRequestActions = changeRequestChangeSchema.options.map((option) => option.shape.action.value) as ChangeRequestAction[];

/** What a change-request action is about, read by the rules that combine changes, the view and the admin UI. */
export interface ChangeRequestActionDescription {
  /** What the change names: a flag, one strategy of a flag (by `payload.id`), or a segment (by `payload.id`). */
  target: "flag" | "strategy" | "segment";
  /**
   * Changes of one group to the same target replace each other in a request (the latest wins);
   * null: they accumulate.
   */
  combineGroup: string | null;
  /** Its payload is a strategy the flag will have once applied (segment usage counts it). */
  proposesStrategy: boolean;
  /** The change in words, for people (the action names are for programs). */
  label: string;
}

/** The one place an action is described; what it does when applied is the admin service's action table. */
export const changeRequestActionTable: Record<ChangeRequestAction, ChangeRequestActionDescription> = {
  updateSegment: { target: "segment", combineGroup: "segment", proposesStrategy: false, label: "Change a segment" },
  deleteSegment: { target: "segment", combineGroup: "segment", proposesStrategy: false, label: "Delete a segment" },
  updateEnabled: { target: "flag", combineGroup: "updateEnabled", proposesStrategy: false, label: "Turn on or off" },
  addStrategy: { target: "strategy", combineGroup: null, proposesStrategy: true, label: "Add a strategy" },
  updateStrategy: { target: "strategy", combineGroup: "strategy", proposesStrategy: true, label: "Change a strategy" },
  deleteStrategy: { target: "strategy", combineGroup: "strategy", proposesStrategy: false, label: "Delete a strategy" },
  archiveFeature: { target: "flag", combineGroup: "archiveFeature", proposesStrategy: false, label: "Archive the flag" },
  patchVariant: { target: "flag", combineGroup: "patchVariant", proposesStrategy: false, label: "Change the variants" },
  reorderStrategy: { target: "flag", combineGroup: "reorderStrategy", proposesStrategy: false, label: "Reorder the strategies" },
  addDependency: { target: "flag", combineGroup: "dependency", proposesStrategy: false, label: "Add a dependency" },
  deleteDependency: { target: "flag", combineGroup: "dependency", proposesStrategy: false, label: "Remove a dependency" },
};

/**
 * The body is one change or an array of them; handlers always receive an array. A single change's
 * error paths therefore start with index 0.
 */
export const changeRequestBodySchema = z.preprocess(
  (body) => (Array.isArray(body) ? body : [body]),
  z.array(changeRequestChangeSchema).min(1, "At least one change is required"),
);
export type ChangeRequestBody = z.infer<typeof changeRequestBodySchema>;

// ---- Change request response. ----

export const changeRequestStates = ["Draft", "In review", "Approved", "Applied", "Cancelled", "Rejected", "Scheduled"] as const;
export const changeRequestStateSchema = z.enum(changeRequestStates);
export type ChangeRequestState = z.infer<typeof changeRequestStateSchema>;

/** Varies by action: an object for most, an array for reorderStrategy. */
const changePayloadSchema = z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]);

export const changeEntrySchema = z.object({
  id: z.number(),
  action: z.string(),
  conflict: z.string().optional(),
  payload: changePayloadSchema,
  createdBy: z.object({ username: z.string().nullable().optional(), imageUrl: z.string().url().nullable().optional() }).optional(),
  createdAt: dateTimeSchema.optional(),
});
export type ChangeEntry = z.infer<typeof changeEntrySchema>;

export const changeRequestFeatureSchema = z.object({
  name: z.string(),
  conflict: z.string().optional(),
  changes: z.array(changeEntrySchema),
  /** Applied in the background with the request to prevent invalid states; not part of the request. */
  defaultChange: z.object({ action: z.string(), payload: changePayloadSchema }).optional(),
});
export type ChangeRequestFeature = z.infer<typeof changeRequestFeatureSchema>;

export const changeRequestSegmentSchema = changeEntrySchema.extend({ name: z.string() });
export type ChangeRequestSegment = z.infer<typeof changeRequestSegmentSchema>;

export const changeRequestReviewSchema = z.object({
  createdBy: z.object({
    id: z.number().optional(),
    username: z.string().optional(),
    imageUrl: z.string().url().optional(),
  }),
  createdAt: dateTimeSchema,
});
export type ChangeRequestReview = z.infer<typeof changeRequestReviewSchema>;

/**
 * The spec shows the fields up to `rejections`; state, creator and timestamps follow Unleash and are
 * optional. Unknown further fields pass through so services can add the rest without losing them.
 */
export const changeRequestSchema = z
  .object({
    id: z.number(),
    title: z.string().optional(),
    environment: z.string(),
    minApprovals: z.number(),
    project: z.string(),
    features: z.array(changeRequestFeatureSchema),
    segments: z.array(changeRequestSegmentSchema),
    approvals: z.array(changeRequestReviewSchema).optional(),
    rejections: z.array(changeRequestReviewSchema).optional(),
    state: changeRequestStateSchema.optional(),
    createdBy: z
      .object({ id: z.number().optional(), username: z.string().nullable().optional(), imageUrl: z.string().nullable().optional() })
      .optional(),
    createdAt: dateTimeSchema.optional(),
  })
  .passthrough();
export type ChangeRequest = z.infer<typeof changeRequestSchema>;

export const changeRequestCommentSchema = z.object({
  id: z.number(),
  text: z.string(),
  createdBy: z.object({ username: z.string().nullable().optional(), imageUrl: z.string().nullable().optional() }),
  createdAt: dateTimeSchema,
});
export type ChangeRequestComment = z.infer<typeof changeRequestCommentSchema>;

// ---- Configuration per project environment (the paths Unleash's own UI calls). ----

/** Unleash allows up to 10 required approvals. */
export const maxRequiredApprovals = 10;

export const changeRequestConfigInputSchema = z.object({
  changeRequestsEnabled: z.boolean(),
  requiredApprovals: z.number().int().min(1).max(maxRequiredApprovals).optional(),
});
export type ChangeRequestConfigInput = z.infer<typeof changeRequestConfigInputSchema>;

export const changeRequestEnvironmentConfigSchema = z.object({
  environment: z.string(),
  type: z.string(),
  changeRequestEnabled: z.boolean(),
  requiredApprovals: z.number().int(),
});
export type ChangeRequestEnvironmentConfig = z.infer<typeof changeRequestEnvironmentConfigSchema>;
export const changeRequestEnvironmentConfigListSchema = z.array(changeRequestEnvironmentConfigSchema);

// ---- Moves. ----

export const changeRequestStateInputSchema = z.object({
  state: changeRequestStateSchema.exclude(["Draft"]),
  comment: z.string().optional(),
  /** Required when `state` is `Scheduled`: when to apply. */
  scheduledAt: dateTimeSchema.optional(),
});
export type ChangeRequestStateInput = z.infer<typeof changeRequestStateInputSchema>;

export const changeRequestCommentInputSchema = z.object({ text: z.string().trim().min(1) });
export const changeRequestTitleInputSchema = z.object({ title: z.string().trim().min(1).max(255) });
export const changeRequestReviewInputSchema = z.object({ comment: z.string().optional() }).optional();

export const changeRequestListQuerySchema = z.object({
  state: changeRequestStateSchema.optional(),
  /** User id of the creator. */
  createdBy: z.coerce.number().int().optional(),
});

export const changeRequestSearchQuerySchema = changeRequestListQuerySchema.extend({
  project: z.string().optional(),
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
});

export const changeRequestListSchema = z.array(changeRequestSchema);
export const changeRequestSearchResultSchema = z.object({ changeRequests: z.array(changeRequestSchema), total: z.number().int() });
