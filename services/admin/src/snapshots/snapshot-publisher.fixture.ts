import { createMemoryBus } from "@vexil/bus";
import { createMemoryCache } from "@vexil/cache";
import { clientSegmentSchema, cacheKeys, snapshotIndexSchema, snapshotNamesSchema, topics, type EventType } from "@vexil/contracts";
import { createLogger, type Logger } from "@vexil/logger";
import type { FeatureDocument, FeatureStrategyDocument, SegmentDocument } from "../features/feature-model.js";
import { featureDocument, strategyDocument } from "../features/feature-slice.fixture.js";
import { SnapshotPublisher, type SnapshotSources } from "./snapshot-publisher.js";

export const at = new Date("2024-05-01T00:00:00.000Z");

export const strategy = (overrides: Partial<FeatureStrategyDocument> = {}): FeatureStrategyDocument =>
  strategyDocument({ createdAt: at, ...overrides });

export const flag = (name: string, overrides: Partial<FeatureDocument> = {}): FeatureDocument =>
  featureDocument(name, {
    createdAt: at,
    environments: { development: { enabled: true, strategies: [strategy()], variants: [], lastSeenAt: null } },
    ...overrides,
  });

export function segment(id: number, values: string[]): SegmentDocument {
  return {
    _id: id,
    name: `segment-${id}`,
    description: null,
    project: null,
    constraints: [{ contextName: "userId", operator: "IN", values }],
    createdBy: null,
    createdAt: at,
    version: 1,
  };
}

/** An in-memory flag model that counts reads, standing in for the owning services. */
export function fakeModel() {
  const flags = new Map<string, FeatureDocument>();
  const segments = new Map<number, SegmentDocument>();
  /** The event log, in commit order. */
  const log: Array<{ _id: number; type: EventType; featureName: string | null }> = [];
  let eventId = 0;
  const reads = { listFeatures: 0, findFeature: 0 };
  const sources: SnapshotSources = {
    async listFeatures() {
      reads.listFeatures++;
      return [...flags.values()].filter((f) => !f.archived);
    },
    async findFeature(name) {
      reads.findFeature++;
      return flags.get(name) ?? null;
    },
    async listSegments() {
      return [...segments.values()];
    },
    async listEnvironments() {
      return ["development", "production"];
    },
    async listProjectEnvironments() {
      return [
        { project: "default", environment: "development" },
        { project: "default", environment: "production" },
      ];
    },
    async latestEventId() {
      return eventId;
    },
    async eventsBetween(after, upTo) {
      return log.filter((event) => event._id > after && event._id <= upTo);
    },
  };
  return {
    flags,
    segments,
    sources,
    reads,
    /** Records a change the way a unit of work commits it; the result is its notice. */
    event(type: EventType, featureName: string | null = null) {
      const event = { _id: ++eventId, type, featureName };
      log.push(event);
      return event;
    },
  };
}

/** The commit time the publisher's clock gives: announcements carry it for the apply-lag metric. */
export const committedAt = "2026-01-02T03:04:05.000Z";

export async function setup(options: { retryDelayMs?: number; maxRetryDelayMs?: number; logger?: Logger } = {}) {
  const model = fakeModel();
  const cache = createMemoryCache();
  const bus = createMemoryBus();
  const announced: unknown[] = [];
  bus.subscribe(topics.snapshotUpdated, (payload) => {
    announced.push(payload);
  });
  const publisher = new SnapshotPublisher({
    sources: model.sources,
    cache,
    bus,
    logger: options.logger ?? createLogger({ service: "test", level: "silent" }),
    retryDelayMs: options.retryDelayMs ?? 10,
    maxRetryDelayMs: options.maxRetryDelayMs,
    clock: () => new Date(committedAt),
  });
  /** The environment's snapshot as a reader assembles it from the index, its names and its entries. */
  const read = async (environment: string) => {
    const index = snapshotIndexSchema.parse(await cache.getJson(cacheKeys.snapshotIndex(environment)));
    const { revision: namesRevision, featureNames } = snapshotNamesSchema.parse(await cache.getJson(cacheKeys.snapshotNames(environment)));
    // A reader builds nothing from names the index was not written with.
    if (namesRevision !== index.namesRevision) throw new Error(`names of revision ${namesRevision}, index expects ${index.namesRevision}`);
    const texts = await Promise.all(featureNames.map((name) => cache.get(cacheKeys.snapshotFeature(environment, name))));
    const segments = clientSegmentSchema.array().parse(await cache.getJson(cacheKeys.snapshotSegments(environment)));
    return { ...index, featureNames, features: texts.map((json) => JSON.parse(json!)), segments };
  };
  const features = async (environment: string) => (await read(environment)).features;
  return { model, cache, bus, publisher, announced, read, features };
}
