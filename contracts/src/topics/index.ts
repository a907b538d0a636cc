import { addonTopics } from "./addons.js";
import { domainEventTopics } from "./domain-events.js";
import { metricsTopics } from "./metrics.js";
import { signalTopics } from "./signals.js";
import { snapshotTopics } from "./snapshots.js";
import { tokenTopics } from "./tokens.js";

export * from "./addons.js";
export * from "./domain-events.js";
export * from "./metrics.js";
export * from "./signals.js";
export * from "./snapshots.js";
export * from "./tokens.js";
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
