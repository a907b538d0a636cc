import { z } from "zod";
import { dateTimeSchema } from "../common.js";
import { constraintSchema } from "./constraint.js";
import { featureDependencySchema } from "./feature.js";
import { featureVariantSchema, strategyVariantSchema } from "./variant.js";

/**
 * The Unleash client API (`/api/client/*`), as the server SDKs read it. Response schemas are
 * loose on purpose: SDKs ignore fields they do not know, and newer Unleash fields must pass.
 */

export const clientStrategySchema = z.object({
  id: z.string().optional(),
  name: z.string(),
  title: z.string().nullable().optional(),
  sortOrder: z.number().optional(),
  constraints: z.array(constraintSchema),
  parameters: z.record(z.string(), z.string()),
  segments: z.array(z.number().int()).optional(),
  variants: z.array(strategyVariantSchema).optional(),
});
export type ClientStrategy = z.infer<typeof clientStrategySchema>;

export const clientFeatureSchema = z.object({
  name: z.string(),
  type: z.string(),
  description: z.string().nullable(),
  project: z.string(),
  enabled: z.boolean(),
  stale: z.boolean(),
  impressionData: z.boolean(),
  strategies: z.array(clientStrategySchema),
  variants: z.array(featureVariantSchema),
  dependencies: z.array(featureDependencySchema).optional(),
});
export type ClientFeature = z.infer<typeof clientFeatureSchema>;

export const clientSegmentSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  constraints: z.array(constraintSchema),
});
export type ClientSegment = z.infer<typeof clientSegmentSchema>;

/** `project` may repeat (`?project=a&project=b`); express gives a string or a list. */
export const clientFeaturesQuerySchema = z.object({
  project: z.union([z.string(), z.array(z.string())]).optional(),
  namePrefix: z.string().optional(),
  tag: z.union([z.string(), z.array(z.string())]).optional(),
});
export type ClientFeaturesQuery = z.infer<typeof clientFeaturesQuerySchema>;

export const clientFeaturesResponseSchema = z.object({
  version: z.literal(2),
  features: z.array(clientFeatureSchema),
  /** Absent when segments are inlined into the strategies' constraints (old SDKs). */
  segments: z.array(clientSegmentSchema).optional(),
  query: z.object({
    project: z.array(z.string()).optional(),
    namePrefix: z.string().optional(),
    environment: z.string(),
    inlineSegmentConstraints: z.boolean(),
  }),
  meta: z.object({ revisionId: z.number().int(), etag: z.string(), queryHash: z.string() }),
});
export type ClientFeaturesResponse = z.infer<typeof clientFeaturesResponseSchema>;

/** Events of the delta API and the streaming connection, as Unleash Enterprise sends them. */
export const deltaEventSchema = z.discriminatedUnion("type", [
  z.object({
    eventId: z.number().int(),
    type: z.literal("hydration"),
    features: z.array(clientFeatureSchema),
    segments: z.array(clientSegmentSchema),
  }),
  z.object({ eventId: z.number().int(), type: z.literal("feature-updated"), feature: clientFeatureSchema }),
  z.object({
    eventId: z.number().int(),
    type: z.literal("feature-removed"),
    featureName: z.string(),
    project: z.string(),
  }),
  z.object({ eventId: z.number().int(), type: z.literal("segment-updated"), segment: clientSegmentSchema }),
  z.object({ eventId: z.number().int(), type: z.literal("segment-removed"), segmentId: z.number().int() }),
]);
export type DeltaEvent = z.infer<typeof deltaEventSchema>;

export const clientDeltaResponseSchema = z.object({ events: z.array(deltaEventSchema) });
export type ClientDeltaResponse = z.infer<typeof clientDeltaResponseSchema>;

/** What SDKs send when they start (`/api/client/register`, `/api/frontend/client/register`). */
export const clientRegistrationSchema = z
  .object({
    appName: z.string().min(1),
    instanceId: z.string().optional(),
    connectionId: z.string().optional(),
    sdkVersion: z.string().optional(),
    environment: z.string().optional(),
    strategies: z.array(z.string()).optional(),
    started: z.union([dateTimeSchema, z.number()]).optional(),
    interval: z.number().optional(),
  })
  .passthrough();
export type ClientRegistration = z.infer<typeof clientRegistrationSchema>;

export const toggleMetricsSchema = z.object({
  yes: z.number().int().nonnegative().optional(),
  no: z.number().int().nonnegative().optional(),
  // Counts are kept per variant name as a field of the hour's document, and a field name cannot be empty.
  variants: z.record(z.string().min(1, "A variant name cannot be empty"), z.number().int().nonnegative()).optional(),
});

/** Usage counts the SDKs post every metrics interval. */
export const clientMetricsSchema = z
  .object({
    appName: z.string().min(1),
    instanceId: z.string().optional(),
    environment: z.string().optional(),
    bucket: z
      .object({
        start: z.union([dateTimeSchema, z.number()]),
        stop: z.union([dateTimeSchema, z.number()]),
        toggles: z.record(z.string(), toggleMetricsSchema),
      })
      .optional(),
  })
  .passthrough();
export type ClientMetrics = z.infer<typeof clientMetricsSchema>;

/**
 * The per-environment snapshot the admin keeps in the cache for frontend-eval, one entry per flag
 * so a change rewrites only what changed: the index (`snapshot:<env>`, the revision and which
 * names entry goes with it), the names of the flags served, sorted (`snapshot:<env>:names`,
 * rewritten only when flags come or go, so a change to one flag does not rewrite every name),
 * each flag's JSON text as the SDKs receive it (`snapshot:<env>:feature:<name>`, stored raw so
 * readers splice payloads without serialising again) and the segment list
 * (`snapshot:<env>:segments`). The admin writes flags and segments, then the names, then the
 * index, and the index before announcing, so a reader never sees a revision whose entries are
 * older than it.
 */
export const snapshotIndexSchema = z.object({
  environment: z.string().min(1),
  /** Id of the newest domain event the snapshot reflects. */
  revision: z.number().int().nonnegative(),
  /**
   * The `revision` of the names entry this index goes with. A reader that finds another one there
   * read between a writer's names and its index, and must not combine the two.
   */
  namesRevision: z.number().int().nonnegative(),
});
export type SnapshotIndex = z.infer<typeof snapshotIndexSchema>;

/** The snapshot's flag names, sorted, and the revision of the index they were written with. */
export const snapshotNamesSchema = z.object({
  revision: z.number().int().nonnegative(),
  featureNames: z.array(z.string()),
});
export type SnapshotNames = z.infer<typeof snapshotNamesSchema>;
