import { isNoResponders, type Bus } from "@vexil/bus";
import type { Cache } from "@vexil/cache";
import {
  clientSegmentSchema,
  cacheKeys,
  snapshotIndexSchema,
  snapshotNamesSchema,
  topics,
  type ClientSegment,
  type DeltaEvent,
  type SnapshotUpdated,
} from "@vexil/contracts";
import { NotReady } from "@vexil/errors";
import type { Logger } from "@vexil/logger";
import { z } from "zod";
import { EnvironmentSnapshot, nextSnapshot, type SnapshotChanges, type SnapshotTexts } from "./environment-snapshot.js";

/** Called after each swap; `notice` is the announcement that caused it (none for a load at start). */
export type SnapshotListener = (snapshot: EnvironmentSnapshot, changes: readonly DeltaEvent[], notice?: SnapshotUpdated) => void;

/** Delta events kept per environment, for `/api/client/delta` and streaming resumes. */
interface History {
  /** Every change after this revision is in `events`. */
  since: number;
  events: DeltaEvent[];
}

/** Patched flags, as a share of an environment's flags, after which its snapshot is built again whole (see `compactLater`). */
const patchedShareToRebuild = 0.1;
/** The longest a rebuild holds the event loop at a time, well under what a request may wait. */
const rebuildSliceMs = 10;

/** Thrown when the cache does not hold a whole snapshot: the admin is asked to write it again. */
class IncompleteSnapshot extends Error {}

/**
 * The compiled snapshots, one per environment: hydrated from the cache at start, swapped when the
 * admin announces `snapshot.updated.<env>`. An announcement that follows the revision held here
 * costs reading only the flags it names; one after a gap (a missed announcement, a restart of
 * either side) reloads the whole snapshot. Requests only ever read memory from here.
 *
 * The cache is not trusted to be whole: a snapshot with entries missing (a Redis that restarted
 * empty) is never served; the one held stays in force (or none, answering 503) and the admin is
 * asked to write everything again. After the bus or the cache comes back from an outage every
 * environment is read again in full, since announcements sent meanwhile are lost.
 */
export class SnapshotHolder {
  private readonly snapshots = new Map<string, EnvironmentSnapshot>();
  private readonly histories = new Map<string, History>();
  private readonly loading = new Map<string, Promise<void>>();
  private readonly listeners: SnapshotListener[] = [];
  private subscriptions: Array<{ unsubscribe(): void }> = [];
  private republishing: Promise<string[] | undefined> | undefined;
  private lastRepublishAt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Flags patched into each environment's snapshot since it was last built whole. */
  private readonly patched = new Map<string, number>();
  private readonly compactions = new Map<string, NodeJS.Timeout>();
  /** The environments the first list read named: this process serves them, and is ready once it holds them all. */
  private served: string[] | undefined;
  /** When each environment was last read whole or followed an announcement. */
  private readonly loadedAt = new Map<string, number>();
  /** Since when reading each environment fails (unset while it succeeds). */
  private readonly failingSince = new Map<string, number>();

  constructor(
    private readonly deps: {
      cache: Cache;
      bus: Bus;
      logger: Logger;
      /** Delta events kept per environment. */
      historyLimit?: number;
      /** Wait before reading again after the admin could not be asked for a rebuild. */
      retryDelayMs?: number;
      /** How long changes must pause before a much-patched snapshot is built again whole. */
      compactAfterMs?: number;
      now?: () => number;
    },
  ) {}

  async start(): Promise<void> {
    const { bus, cache } = this.deps;
    this.subscriptions = [
      bus.subscribe(topics.snapshotUpdated, (notice) => void this.load(notice.environment, notice)),
      bus.onReconnect(() => void this.reloadAll()),
      cache.onReconnect(() => void this.reloadAll()),
    ];
    await this.reloadAll();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    for (const timer of this.compactions.values()) clearTimeout(timer);
    for (const subscription of this.subscriptions) subscription.unsubscribe();
  }

  /** Reads every environment again in full; asks the admin for them when the cache has no list. */
  async reloadAll(): Promise<void> {
    let environments: string[] | undefined;
    try {
      const listed = z.array(z.string()).safeParse(await this.deps.cache.getJson(cacheKeys.snapshotEnvironments));
      environments = listed.success ? listed.data : await this.requestRepublish();
    } catch (err) {
      this.deps.logger.warn({ err }, "could not read the snapshot environments; keeping the snapshots held");
    }
    if (!environments) return this.retryLater();
    this.served ??= environments;
    await Promise.all(environments.map((environment) => this.load(environment)));
  }

  /**
   * True once a whole snapshot is held for every environment the first list read named (an
   * environment added later is served once loaded, and never makes the process unready). Snapshots
   * are only ever replaced, so once true it stays true, whatever NATS, Redis or admin do.
   */
  get ready(): boolean {
    return this.served !== undefined && this.served.every((environment) => this.snapshots.has(environment));
  }

  /** When an environment was last known to be read as the cache holds it, and since when reading it fails. */
  freshness(environment: string): { loadedAt: number | undefined; failingSince: number | undefined } {
    return { loadedAt: this.loadedAt.get(environment), failingSince: this.failingSince.get(environment) };
  }

  /**
   * Reads the environment again if the cache holds another revision than the one served: how
   * changes are followed while announcements cannot be heard (NATS away). Costs one read when nothing moved.
   */
  async refreshIfMoved(environment: string): Promise<void> {
    const index = snapshotIndexSchema.safeParse(await this.deps.cache.getJson(cacheKeys.snapshotIndex(environment)));
    if (index.success && index.data.revision !== this.snapshots.get(environment)?.revision) await this.load(environment);
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

  /** Loads one environment; loads (and rebuilds) of the same environment run one after another. */
  private load(environment: string, notice?: SnapshotUpdated): Promise<void> {
    const now = this.deps.now ?? Date.now;
    return this.inTurn(environment, async () => {
      try {
        await this.loadNow(environment, notice);
      } catch (err) {
        if (!this.failingSince.has(environment)) this.failingSince.set(environment, now());
        throw err;
      }
      this.loadedAt.set(environment, now());
      this.failingSince.delete(environment);
    });
  }

  private inTurn(environment: string, work: () => Promise<void> | void): Promise<void> {
    const next = (this.loading.get(environment) ?? Promise.resolve()).then(work);
    const tracked = next.catch((err: unknown) => {
      if (err instanceof IncompleteSnapshot) {
        this.deps.logger.warn(
          { environment, reason: err.message },
          "the cache holds no whole snapshot; asking the admin to write it again",
        );
        void this.requestRepublish().then((environments) => {
          if (!environments) this.retryLater();
          else if (environments.includes(environment)) void this.load(environment);
        });
      } else {
        this.deps.logger.error({ err, environment }, "loading a snapshot failed");
        // Nothing else would try again for an environment this process holds nothing of yet.
        if (!this.snapshots.has(environment)) this.retryLater();
      }
    });
    this.loading.set(environment, tracked);
    return tracked;
  }

  /**
   * An announcement naming the changed flags and following the revision held reads only those; any
   * other (a full notice, a gap, a reload) reads the whole snapshot, even at the revision held:
   * the cache may have been rebuilt since, and a whole read is how a held snapshot is checked.
   */
  private async loadNow(environment: string, notice: SnapshotUpdated | undefined): Promise<void> {
    const previous = this.snapshots.get(environment);
    const incremental = notice?.previousRevision !== undefined && notice.changedFeatures !== undefined;
    if (previous && incremental && previous.revision >= notice.revision) return;
    const follows = previous && incremental && notice.previousRevision === previous.revision;
    const read = follows ? await this.readChanges(previous, notice) : await this.readWhole(environment);
    if (previous && previous.revision > read.revision) return;
    const { snapshot, changes } = follows
      ? nextSnapshot(previous, read as SnapshotChanges)
      : EnvironmentSnapshot.from(read as SnapshotTexts, previous);
    if (previous && previous.revision === snapshot.revision && changes.length === 0) return;
    this.snapshots.set(environment, snapshot);
    // A first load is built whole; any later one patches the flags it re-reads into the held snapshot.
    if (!previous) this.patched.delete(environment);
    else this.compactLater(environment, follows ? (read as SnapshotChanges).features.size : changes.length);
    this.remember(environment, previous, snapshot, changes);
    for (const listener of this.listeners) {
      try {
        listener(snapshot, changes, notice);
      } catch (err) {
        this.deps.logger.error({ err, environment }, "a snapshot listener failed");
      }
    }
  }

  /**
   * Once a tenth of an environment's flags have been patched in since it was built whole, builds
   * it again whole when changes pause (see `EnvironmentSnapshot.rebuilt`), so that after seeding
   * or any run of changes answers cost closer to what they cost after a restart. The rebuild runs
   * in slices of `rebuildSliceMs`, requests answered between them from the held snapshot (in one
   * go it held the event loop about 30 ms at 2,000 flags, 0.3–0.5 s at 50,000 and seconds at
   * 100,000); a change swapped in meanwhile makes it stale, so it is dropped and the next pause
   * starts it again. The rebuilt snapshot holds the same flags at the same revision, so no
   * listener hears of it.
   */
  private compactLater(environment: string, flagsPatched: number): void {
    const patched = (this.patched.get(environment) ?? 0) + flagsPatched;
    this.patched.set(environment, patched);
    if (patched < this.get(environment).featureJson.size * patchedShareToRebuild) return;
    clearTimeout(this.compactions.get(environment));
    const timer = setTimeout(() => {
      this.compactions.delete(environment);
      void this.rebuild(environment);
    }, this.deps.compactAfterMs ?? 1000);
    timer.unref();
    this.compactions.set(environment, timer);
  }

  private async rebuild(environment: string): Promise<void> {
    const held = this.snapshots.get(environment);
    if (!held || this.stopped) return;
    const started = performance.now();
    const rebuilt = await held.rebuiltInTurns(rebuildSliceMs);
    if (this.stopped || this.snapshots.get(environment) !== held) return;
    this.snapshots.set(environment, rebuilt);
    this.patched.delete(environment);
    this.deps.logger.debug({ environment, flags: rebuilt.featureJson.size, ms: performance.now() - started }, "snapshot built again whole");
  }

  /**
   * The whole snapshot, or IncompleteSnapshot. An entry can vanish between reading the index and
   * reading it when a newer revision removed that flag, and the names can be newer than the index
   * read just before them when a writer moved on in between: read again a few times before
   * concluding the cache lost them.
   */
  private async readWhole(environment: string): Promise<SnapshotTexts> {
    let missing = "";
    for (let attempt = 0; attempt < 3; attempt++) {
      const read = await this.readAll(environment);
      if (typeof read === "string") missing = read;
      else if (read.missing.length > 0)
        missing = `${read.missing.length} flag entries missing from ${environment}, e.g. ${read.missing[0]}`;
      else return read.texts;
    }
    throw new IncompleteSnapshot(missing);
  }

  /**
   * The index, then the names it goes with, then every flag they name; or why the cache holds no
   * snapshot to read (no index, or not the names it was written with).
   */
  private async readAll(environment: string): Promise<{ texts: SnapshotTexts; missing: string[] } | string> {
    const { cache } = this.deps;
    const raw = await cache.getJson(cacheKeys.snapshotIndex(environment));
    if (raw === null) return `no snapshot index for ${environment}`;
    const index = snapshotIndexSchema.parse(raw);
    const [segments, rawNames] = await Promise.all([this.readSegments(environment), cache.getJson(cacheKeys.snapshotNames(environment))]);
    if (rawNames === null) return `no snapshot names for ${environment}`;
    const { revision: namesRevision, featureNames } = snapshotNamesSchema.parse(rawNames);
    // Names of another revision than the index's would pair one revision's flag list with another's.
    if (namesRevision !== index.namesRevision)
      return `the snapshot names of ${environment} are of revision ${namesRevision}, its index (revision ${index.revision}) goes with ${index.namesRevision}`;
    const texts = await Promise.all(featureNames.map((name) => cache.get(cacheKeys.snapshotFeature(environment, name))));
    const missing = featureNames.filter((_, i) => texts[i] === null);
    const features = featureNames.flatMap((name, i) => (texts[i] === null ? [] : [[name, texts[i]!] as const]));
    return { texts: { environment, revision: index.revision, features, segments }, missing };
  }

  /**
   * Asks the admin to write every snapshot again (one request at a time); resolves with the
   * environments once they are written, or undefined when the admin did not answer.
   */
  private requestRepublish(): Promise<string[] | undefined> {
    // At most one request every two seconds, however often the cache turns out incomplete.
    const wait = Math.max(0, this.lastRepublishAt + 2000 - Date.now());
    this.republishing ??= new Promise((resolve) => setTimeout(resolve, wait))
      .then(() => {
        this.lastRepublishAt = Date.now();
        return this.deps.bus.request(topics.snapshotRepublish, {}, { timeoutMs: 15_000 });
      })
      .then((reply) => reply.environments)
      .catch((err: unknown) => {
        // Before admin has started nobody answers yet: expected, and it publishes every snapshot once it runs.
        if (!this.ready && isNoResponders(err)) this.deps.logger.info("snapshots: admin is not answering yet; loading them once it does");
        else this.deps.logger.warn({ err }, "the admin did not rebuild the snapshots; retrying");
        return undefined;
      })
      .finally(() => (this.republishing = undefined));
    return this.republishing;
  }

  private retryLater(): void {
    if (this.stopped || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.reloadAll();
    }, this.deps.retryDelayMs ?? 2000);
  }

  /** The flags (and segments) the announcement names, read again. */
  private async readChanges(previous: EnvironmentSnapshot, notice: SnapshotUpdated): Promise<SnapshotChanges> {
    const { environment } = previous;
    const names = notice.changedFeatures ?? [];
    const [segments, texts] = await Promise.all([
      notice.segmentsChanged ? this.readSegments(environment) : previous.segments,
      Promise.all(names.map((name) => this.deps.cache.get(cacheKeys.snapshotFeature(environment, name)))),
    ]);
    return { revision: notice.revision, features: new Map(names.map((name, i) => [name, texts[i] ?? null])), segments };
  }

  private async readSegments(environment: string): Promise<ClientSegment[]> {
    return clientSegmentSchema.array().parse((await this.deps.cache.getJson(cacheKeys.snapshotSegments(environment))) ?? []);
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
