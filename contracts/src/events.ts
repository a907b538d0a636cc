import { z } from "zod";
import { dateTimeSchema } from "./common.js";
import { apiTokenTypeSchema } from "./schemas/api-token.js";
import { tagSchema } from "./schemas/tag.js";

/** Unleash's event type names, as addon configurations and the event log use them. */
export const eventTypes = [
  "application-created",
  "feature-created",
  "feature-deleted",
  "feature-updated",
  "feature-metadata-updated",
  "feature-variants-updated",
  "feature-environment-variants-updated",
  "feature-project-change",
  "feature-archived",
  "feature-revived",
  "feature-import",
  "feature-tagged",
  "feature-tag-import",
  "feature-strategy-update",
  "feature-strategy-add",
  "feature-strategy-remove",
  "feature-type-updated",
  "feature-completed",
  "feature-uncompleted",
  "feature-link-added",
  "feature-link-removed",
  "feature-link-updated",
  "strategy-order-changed",
  "drop-feature-tags",
  "feature-untagged",
  "feature-stale-on",
  "feature-stale-off",
  "drop-features",
  "feature-environment-enabled",
  "feature-environment-disabled",
  "strategy-created",
  "strategy-deleted",
  "strategy-deprecated",
  "strategy-reactivated",
  "strategy-updated",
  "strategy-import",
  "drop-strategies",
  "context-field-created",
  "context-field-updated",
  "context-field-deleted",
  "project-access-added",
  "project-access-user-roles-updated",
  "project-access-group-roles-updated",
  "project-access-user-roles-deleted",
  "project-access-group-roles-deleted",
  "project-access-updated",
  "project-created",
  "project-updated",
  "project-deleted",
  "project-archived",
  "project-revived",
  "project-import",
  "project-user-added",
  "project-user-removed",
  "project-user-role-changed",
  "project-group-added",
  "role-created",
  "role-updated",
  "role-deleted",
  "drop-projects",
  "tag-created",
  "tag-deleted",
  "tag-import",
  "drop-tags",
  "tag-type-created",
  "tag-type-deleted",
  "tag-type-updated",
  "tag-type-import",
  "drop-tag-types",
  "addon-config-created",
  "addon-config-updated",
  "addon-config-deleted",
  "db-pool-update",
  "user-created",
  "user-updated",
  "user-deleted",
  "drop-environments",
  "environment-import",
  "environment-created",
  "environment-updated",
  "environment-deleted",
  "segment-created",
  "segment-updated",
  "segment-deleted",
  "group-created",
  "group-updated",
  "group-deleted",
  "group-user-added",
  "group-user-removed",
  "setting-created",
  "setting-updated",
  "setting-deleted",
  "client-metrics",
  "client-register",
  "pat-created",
  "pat-deleted",
  "public-signup-token-created",
  "public-signup-token-user-added",
  "public-signup-token-updated",
  "change-request-created",
  "change-request-discarded",
  "change-added",
  "change-discarded",
  "change-edited",
  "change-request-rejected",
  "change-request-approved",
  "change-request-approval-added",
  "change-request-cancelled",
  "change-request-sent-to-review",
  "change-request-schedule-suspended",
  "change-request-applied",
  "change-request-scheduled",
  "change-request-scheduled-application-success",
  "change-request-scheduled-application-failure",
  "change-request-configuration-updated",
  "change-request-requested-approvers-updated",
  "api-token-created",
  "api-token-updated",
  "api-token-deleted",
  "feature-favorited",
  "feature-unfavorited",
  "project-favorited",
  "project-unfavorited",
  "features-exported",
  "features-imported",
  "service-account-created",
  "service-account-deleted",
  "service-account-updated",
  "feature-potentially-stale-on",
  "feature-dependency-added",
  "feature-dependency-removed",
  "feature-dependencies-removed",
  "banner-created",
  "banner-updated",
  "banner-deleted",
  "project-environment-added",
  "project-environment-removed",
  "default-strategy-updated",
  "segment-import",
  "signal-endpoint-created",
  "signal-endpoint-updated",
  "signal-endpoint-deleted",
  "signal-endpoint-token-created",
  "signal-endpoint-token-updated",
  "signal-endpoint-token-deleted",
  "actions-created",
  "actions-updated",
  "actions-deleted",
  "release-plan-template-created",
  "release-plan-template-updated",
  "release-plan-template-deleted",
  "release-plan-template-archived",
  "release-plan-added",
  "release-plan-removed",
  "release-plan-milestone-started",
  "user-preference-updated",
  "scim-users-deleted",
  "scim-groups-deleted",
  "cdn-token-created",
] as const;
export const eventTypeSchema = z.enum(eventTypes);
export type EventType = z.infer<typeof eventTypeSchema>;

/** A published subject paired with the schema of its payload, so both ends share one type. */
export interface Topic<T> {
  subject: string;
  // Input is unknown: payloads arrive as parsed JSON, and schemas may fill defaults.
  schema: z.ZodType<T, z.ZodTypeDef, unknown>;
}

/** A domain event, as the admin writes it to its outbox and publishes it on `events.<type>`. */
export const domainEventSchema = z.object({
  /** Unique per event; also the JetStream message id, so redeliveries and republishes dedupe. */
  id: z.string().min(1),
  type: eventTypeSchema,
  createdAt: dateTimeSchema,
  createdBy: z.string(),
  createdByUserId: z.number(),
  project: z.string().nullable().default(null),
  environment: z.string().nullable().default(null),
  featureName: z.string().nullable().default(null),
  data: z.unknown().nullable().default(null),
  preData: z.unknown().nullable().default(null),
  tags: z.array(tagSchema).default([]),
});
export type DomainEvent = z.infer<typeof domainEventSchema>;
export type DomainEventInput = z.input<typeof domainEventSchema>;

/**
 * A new snapshot for one environment; `revision` is the id of the newest event it reflects. When
 * it names `previousRevision` and the changed flags, a reader holding exactly that revision reads
 * only those entries (and the segments when `segmentsChanged`); any other reader, or a notice
 * without them, reloads the whole snapshot.
 */
export const snapshotUpdatedSchema = z.object({
  environment: z.string().min(1),
  revision: z.number().int().nonnegative(),
  previousRevision: z.number().int().nonnegative().optional(),
  changedFeatures: z.array(z.string()).optional(),
  segmentsChanged: z.boolean().optional(),
  /** When the oldest change in this revision was committed, for the commit-to-apply lag metric. */
  committedAt: z.string().datetime().optional(),
});
export type SnapshotUpdated = z.infer<typeof snapshotUpdatedSchema>;

/**
 * An API token was created/updated or deleted. Carries no secret: `secretHash` (sha256 hex of the
 * secret) identifies the token in caches, and the rest says which scopes to refresh.
 */
export const tokensChangedSchema = z.object({
  kind: z.enum(["upsert", "delete"]),
  secretHash: z.string().regex(/^[0-9a-f]{64}$/, "Must be a sha256 hex digest"),
  tokenName: z.string(),
  type: apiTokenTypeSchema,
  environment: z.string(),
  projects: z.array(z.string()),
});
export type TokensChanged = z.infer<typeof tokensChangedSchema>;

/** A signal stored by signal-ingest, announced for the actions that react to it. */
export const signalReceivedSchema = z.object({
  endpointId: z.number().int(),
  endpointName: z.string(),
  signalId: z.number().int(),
  /** Name of the token (source) that sent the signal. */
  source: z.string(),
  payload: z.unknown(),
  createdAt: dateTimeSchema,
});
export type SignalReceived = z.infer<typeof signalReceivedSchema>;

/**
 * Escapes a value for use as one NATS subject token: `.`, `*`, `>` and whitespace would otherwise
 * split the subject or act as wildcards. Percent-encoding keeps it reversible.
 */
export function subjectToken(value: string): string {
  if (value.length === 0) throw new Error("A subject token cannot be empty");
  return encodeURIComponent(value).replace(/\./g, "%2E").replace(/\*/g, "%2A");
}

/**
 * Features the SDKs reported using (client and frontend metrics), batched by frontend-eval; the
 * admin records them as the feature environment's `lastSeenAt`.
 */
export const featuresSeenSchema = z.object({
  environment: z.string().min(1),
  features: z.array(z.string().min(1)).min(1),
  seenAt: dateTimeSchema,
});
export type FeaturesSeen = z.infer<typeof featuresSeenSchema>;

/**
 * SDK instances that announced themselves (`/client/register`) or sent metrics, batched by
 * frontend-eval (one entry per appName and instanceId); the admin records them as client
 * applications and instances. Registration fields are absent when only metrics were seen.
 */
export const clientInstanceSeenSchema = z.object({
  appName: z.string().min(1),
  instanceId: z.string().min(1),
  sdkType: z.enum(["backend", "frontend"]),
  environment: z.string().min(1),
  /** The token's projects (`*` for all). */
  projects: z.array(z.string().min(1)),
  sdkVersion: z.string().optional(),
  strategies: z.array(z.string()).optional(),
  started: dateTimeSchema.optional(),
  interval: z.number().optional(),
  /** The proxies or Edge instances the registration came through. */
  connectVia: z.array(z.object({ appName: z.string(), instanceId: z.string() })).optional(),
  clientIp: z.string().optional(),
  /** Flags the instance's metrics reported using. */
  seenToggles: z.array(z.string().min(1)).optional(),
  lastSeen: dateTimeSchema,
});
export type ClientInstanceSeen = z.infer<typeof clientInstanceSeenSchema>;
export const clientInstancesSeenSchema = z.object({ instances: z.array(clientInstanceSeenSchema).min(1) });
export type ClientInstancesSeen = z.infer<typeof clientInstancesSeenSchema>;

export const subjects = {
  /** Wildcard for every domain event (the JetStream stream's subject filter). */
  allDomainEvents: "events.>",
  domainEvent: (type: EventType) => `events.${type}`,
  /** Wildcard for every environment's snapshot notice. */
  allSnapshotsUpdated: "snapshot.updated.*",
  snapshotUpdated: (environment: string) => `snapshot.updated.${subjectToken(environment)}`,
  tokensChanged: "tokens.changed",
  signalsReceived: "signals.received",
  featuresSeen: "metrics.features-seen",
  clientInstancesSeen: "metrics.client-instances-seen",
} as const;

export const topics = {
  allDomainEvents: { subject: subjects.allDomainEvents, schema: domainEventSchema } satisfies Topic<DomainEvent>,
  domainEvent: (type: EventType): Topic<DomainEvent> => ({
    subject: subjects.domainEvent(type),
    schema: domainEventSchema,
  }),
  allSnapshotsUpdated: {
    subject: subjects.allSnapshotsUpdated,
    schema: snapshotUpdatedSchema,
  } satisfies Topic<SnapshotUpdated>,
  snapshotUpdated: (environment: string): Topic<SnapshotUpdated> => ({
    subject: subjects.snapshotUpdated(environment),
    schema: snapshotUpdatedSchema,
  }),
  tokensChanged: { subject: subjects.tokensChanged, schema: tokensChangedSchema } satisfies Topic<TokensChanged>,
  signalsReceived: {
    subject: subjects.signalsReceived,
    schema: signalReceivedSchema,
  } satisfies Topic<SignalReceived>,
  featuresSeen: { subject: subjects.featuresSeen, schema: featuresSeenSchema } satisfies Topic<FeaturesSeen>,
  clientInstancesSeen: {
    subject: subjects.clientInstancesSeen,
    schema: clientInstancesSeenSchema,
  } satisfies Topic<ClientInstancesSeen>,
} as const;
