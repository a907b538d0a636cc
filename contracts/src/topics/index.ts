import { addonTopics } from "./addons.js";
import { domainEventTopics } from "./domain-events.js";
import { metricsTopics } from "./metrics.js";
import { signalTopics } from "./signals.js";
import { snapshotTopics } from "./snapshots.js";
import { tokenTopics } from "./tokens.js";

// Payload schemas and types by area; the area topic objects are reached through `topics` only.
export {
  addonConfigSchema,
  addonConfigListSchema,
  addonsChangedSchema,
  addonDeliveriesRequestSchema,
  type AddonConfig,
  type AddonConfigList,
  type AddonsChanged,
  type AddonDeliveriesRequest,
} from "./addons.js";
export { domainEventSchema, type DomainEvent, type DomainEventInput } from "./domain-events.js";
export {
  featuresSeenSchema,
  clientInstanceSeenSchema,
  clientInstancesSeenSchema,
  usageCountSchema,
  usageReportSchema,
  type FeaturesSeen,
  type ClientInstanceSeen,
  type ClientInstancesSeen,
  type UsageCount,
  type UsageReport,
} from "./metrics.js";
export {
  signalReceivedSchema,
  sharedSignalEndpointSchema,
  sharedSignalEndpointsSchema,
  listSignalsRequestSchema,
  type SignalReceived,
  type SharedSignalEndpoint,
  type ListSignalsRequest,
} from "./signals.js";
export { snapshotUpdatedSchema, type SnapshotUpdated } from "./snapshots.js";
export { tokenGrantSchema, tokenGrantsSchema, tokensSeenSchema, type TokensSeen } from "./tokens.js";
export { subjectToken, type PayloadSchema } from "./topic.js";

/**
 * Every subject on the bus, with its payload schema and kind: `event` (JetStream stream, durable
 * consumers), `notice` (core publish/subscribe) or `request` (request/reply, with the reply's
 * schema). Services publish, subscribe and ask only through these, with `@vexil/bus`.
 */
export const topics = {
  ...domainEventTopics,
  ...snapshotTopics,
  ...tokenTopics,
  ...signalTopics,
  ...addonTopics,
  ...metricsTopics,
} as const;

/** The subjects the JetStream event stream holds: every `event` topic's. */
export const eventStreamSubjects: string[] = Object.values(topics).flatMap((topic) => (topic.kind === "event" ? [topic.subject] : []));
