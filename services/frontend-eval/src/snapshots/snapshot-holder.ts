import type { Bus, Subscription } from "@vexil/bus";
import type { Cache } from "@vexil/cache";
import {
  clientSegmentSchema,
  snapshotCacheKey,
  snapshotEnvironmentsKey,
  snapshotFeatureKey,
  snapshotIndexSchema,
  snapshotSegmentsKey,
  topics,
  type ClientSegment,
  type DeltaEvent,
  type SnapshotUpdated,
} from "@vexil/contracts";
import { NotReady } from "@vexil/errors";
import type { Logger } from "@vexil/logger";
import { z } from "zod";
import { EnvironmentSnapshot, type SnapshotTexts } from "./environment-snapshot.js";

/** Called after each swap; `notice` is the announcement that caused it (none for a load at start). */
export type SnapshotListener = (snapshot: EnvironmentSnapshot, changes: readonly DeltaEvent[], notice?: SnapshotUpdated) => void;

/** Delta events kept per environment, for `/api/client/delta` and streaming resumes. */
interface History {
  /** Every change after this revision is in `events`. */
  since: number;
  events: DeltaEvent[];
}

/**
 * The compiled snapshots, one per environment: hydrated from the cache at start, swapped when the
 * admin announces `snapshot.updated.<env>`. An announcement that follows the revision held here
 * costs reading only the flags it names; one after a gap (a missed announcement, a restart of
 * either side) reloads the whole snapshot. Requests only ever read memory from here.
 */
export class SnapshotHolder {
  private readonly snapshots = new Map<string, EnvironmentSnapshot>();
  private readonly histories = new Map<string, History>();
  private readonly loading = new Map<string, Promise<void>>();
  private readonly listeners: SnapshotListener[] = [];
  private subscription: Subscription | undefined;

  constructor(
    private readonly deps: {
      cache: Cache;
      bus: Bus;
      logger: Logger;
      /** Delta events kept per environment. */
      historyLimit?: number;
    },
  ) {}

  async start(): Promise<void> {
    this.subscription = this.deps.bus.subscribe(topics.allSnapshotsUpdated.subject, (payload) => {
      const notice = topics.allSnapshotsUpdated.schema.safeParse(payload);
      if (!notice.success) {
        this.deps.logger.warn({ payload }, "ignoring a malformed snapshot announcement");
        return;
      }
      const current = this.snapshots.get(notice.data.environment);
      if (current && current.revision >= notice.data.revision) return;
      void this.load(notice.data.environment, notice.data);
    });
    const environments = z.array(z.string()).safeParse(await this.deps.cache.getJson(snapshotEnvironmentsKey));
    if (environments.success) await Promise.all(environments.data.map((environment) => this.load(environment)));
  }

  stop(): void {
    this.subscription?.unsubscribe();
  }

  /** True once any environment has a snapshot. */
  get ready(): boolean {
    return this.snapshots.size > 0;
  }

  /** The revision held per environment. */
  revisions(): Array<[environment: string, revision: number]> {
    return [...this.snapshots].map(([environment, snapshot]) => [environment, snapshot.revision]);
  }

  has(environment: string): boolean {
    return this.snapshots.has(environment);
  }

  /** The environment's snapshot, or 503 until the admin has published one. */
  get(environment: string): EnvironmentSnapshot {
    const snapshot = this.snapshots.get(environment);
    if (!snapshot) throw new NotReady(`No flags loaded for environment ${environment} yet`);
    return snapshot;
  }

  onSwap(listener: SnapshotListener): void {
    this.listeners.push(listener);
  }

  /**
   * The changes after `revision`, or undefined when they are no longer (or never were) known here
   * and the caller must hydrate instead.
   */
  changesSince(environment: string, revision: number): DeltaEvent[] | undefined {
    const history = this.histories.get(environment);
    const current = this.snapshots.get(environment);
    if (!history || !current || revision < history.since || revision > current.revision) return undefined;
    return history.events.filter((event) => event.eventId > revision);
  }

  /** Loads one environment; loads of the same environment run one after another. */
  private load(environment: string, notice?: SnapshotUpdated): Promise<void> {
    const next = (this.loading.get(environment) ?? Promise.resolve()).then(() => this.loadNow(environment, notice));
    const tracked = next.catch((err: unknown) => {
      this.deps.logger.error({ err, environment }, "loading a snapshot failed");
    });
    this.loading.set(environment, tracked);
    return tracked;
  }

  private async loadNow(environment: string, notice: SnapshotUpdated | undefined): Promise<void> {
    const previous = this.snapshots.get(environment);
    if (previous && notice && previous.revision >= notice.revision) return;
    const follows = previous && notice?.changedFeatures && notice.previousRevision === previous.revision;
    const texts = follows ? await this.readChanges(previous, notice) : await this.readAll(environment);
    if (!texts || (previous && previous.revision >= texts.revision)) return;
    const { snapshot, changes } = EnvironmentSnapshot.from(texts, previous);
    this.snapshots.set(environment, snapshot);
    this.remember(environment, previous, snapshot, changes);
    for (const listener of this.listeners) {
      try {
        listener(snapshot, changes, notice);
      } catch (err) {
        this.deps.logger.error({ err, environment }, "a snapshot listener failed");
      }
    }
  }

  /** The whole snapshot: the index, then every flag it names; null before the admin wrote one. */
  private async readAll(environment: string): Promise<SnapshotTexts | null> {
    const { cache } = this.deps;
    const raw = await cache.getJson(snapshotCacheKey(environment));
    if (raw === null) return null;
    const index = snapshotIndexSchema.parse(raw);
    const [segments, texts] = await Promise.all([
      this.readSegments(environment),
      Promise.all(index.featureNames.map((name) => cache.get(snapshotFeatureKey(environment, name)))),
    ]);
    // An entry can be gone already when a newer revision removed it; its announcement follows.
    const features = index.featureNames.flatMap((name, i) => (texts[i] === null ? [] : [[name, texts[i]!] as const]));
    return { environment, revision: index.revision, features, segments };
  }

  /** The held snapshot with the flags (and segments) the announcement names read again. */
  private async readChanges(previous: EnvironmentSnapshot, notice: SnapshotUpdated): Promise<SnapshotTexts> {
    const { environment } = previous;
    const names = notice.changedFeatures ?? [];
    const [segments, texts] = await Promise.all([
      notice.segmentsChanged ? this.readSegments(environment) : previous.segments,
      Promise.all(names.map((name) => this.deps.cache.get(snapshotFeatureKey(environment, name)))),
    ]);
    const changed = new Map(names.map((name, i) => [name, texts[i] ?? null]));
    const features: Array<readonly [string, string]> = [];
    for (const [name, json] of previous.featureJson) {
      const next = changed.has(name) ? changed.get(name) : json;
      if (next) features.push([name, next]);
    }
    const added = [...changed].filter(([name, json]) => json !== null && !previous.featureJson.has(name));
    if (added.length > 0) {
      features.push(...(added as Array<[string, string]>));
      features.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    }
    return { environment, revision: notice.revision, features, segments };
  }

  private async readSegments(environment: string): Promise<ClientSegment[]> {
    return clientSegmentSchema.array().parse((await this.deps.cache.getJson(snapshotSegmentsKey(environment))) ?? []);
  }

  private remember(
    environment: string,
    previous: EnvironmentSnapshot | undefined,
    snapshot: EnvironmentSnapshot,
    changes: DeltaEvent[],
  ): void {
    const history = this.histories.get(environment);
    if (!history || !previous) {
      this.histories.set(environment, { since: snapshot.revision, events: [] });
      return;
    }
    history.events.push(...changes);
    const limit = this.deps.historyLimit ?? 1000;
    if (history.events.length > limit) {
      const dropped = history.events.splice(0, history.events.length - limit);
      // A revision is only resumable if all of its events are still here.
      history.since = dropped[dropped.length - 1]!.eventId;
      history.events = history.events.filter((event) => event.eventId > history.since);
    }
  }
}
