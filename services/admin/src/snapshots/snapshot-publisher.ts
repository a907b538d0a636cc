import type { Bus } from "@vexil/bus";
import type { Cache } from "@vexil/cache";
import {
  cacheKeys,
  snapshotNamesSchema,
  topics,
  type ClientSegment,
  type EventType,
  type SnapshotIndex,
  type SnapshotUpdated,
} from "@vexil/contracts";
import { failureLog, type FailureLog, type Logger } from "@vexil/logger";
import type { FeatureDocument, SegmentDocument } from "../features/feature-model.js";
import { servedIn, toClientFeature, toClientSegment } from "./client-features.js";

/** What the publisher reads, through the services that own flags, segments and environments. */
export interface SnapshotSources {
  /** Every flag that is not archived. */
  listFeatures(): Promise<FeatureDocument[]>;
  /** One flag, archived or not; null once deleted. */
  findFeature(name: string): Promise<FeatureDocument | null>;
  listSegments(): Promise<SegmentDocument[]>;
  listEnvironments(): Promise<string[]>;
  listProjectEnvironments(): Promise<Array<{ project: string; environment: string }>>;
  /** Id of the newest recorded event; 0 when there is none. */
  latestEventId(): Promise<number>;
  /** The recorded events with ids in (after, upTo], in id order. */
  eventsBetween(after: number, upTo: number): Promise<ChangeNotice[]>;
}

/** The part of a committed event the publisher looks at. */
export interface ChangeNotice {
  _id: number;
  type: EventType;
  featureName: string | null;
}

interface Pending {
  full: boolean;
  /** Write every entry and announce full notices, whatever this publisher believes the cache holds. */
  rewrite: boolean;
  segments: boolean;
  features: Set<string>;
  revision: number;
  /** When the oldest commit marked here was notified (epoch ms). */
  committedAt?: number;
}

interface EnvironmentState {
  revision: number;
  /** Feature name to its JSON text in this environment. */
  features: Map<string, string>;
  /** The names in order, patched as flags come and go (a binary search each). */
  sortedNames: string[];
  /**
   * The name list as JSON without its closing bracket, extended while new names sort last (as
   * seeding adds them) and built again after any other change to the names, so a write that adds
   * no flag does not serialise every name.
   */
  namesJson: string | undefined;
  /** The revision the names entry in the cache was written at, which the index names. */
  namesRevision: number;
}

/** Above this many flags coming or going in one rebuild, sorting all names is cheaper than placing each. */
const placeOneByOne = 64;

/** Where `name` is, or would go, in the sorted `names`. */
function position(names: readonly string[], name: string): number {
  let low = 0;
  let high = names.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (names[middle]! < name) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Brings the state's name order up to date with flags `added` to and `removed` from its features. */
function placeNames(state: EnvironmentState, added: string[], removed: string[]): void {
  if (added.length + removed.length > placeOneByOne) {
    state.sortedNames = [...state.features.keys()].sort();
    state.namesJson = undefined;
    return;
  }
  const names = state.sortedNames;
  for (const name of removed) {
    const at = position(names, name);
    if (names[at] === name) names.splice(at, 1);
    state.namesJson = undefined;
  }
  for (const name of added.sort()) {
    const last = names.at(-1);
    if (last === undefined || last < name) {
      if (state.namesJson !== undefined) state.namesJson += `${names.length > 0 ? "," : ""}${JSON.stringify(name)}`;
      names.push(name);
    } else {
      names.splice(position(names, name), 0, name);
      state.namesJson = undefined;
    }
  }
}

const emptyPending = (): Pending => ({ full: false, rewrite: false, segments: false, features: new Set(), revision: 0 });

/**
 * Events that can change which environments or projects serve which flags: reload everything. A
 * new project brings its environments; without them its flags would be served nowhere.
 */
function needsFullReload(type: EventType): boolean {
  return (
    type.startsWith("environment-") ||
    type.startsWith("project-environment-") ||
    type.startsWith("drop-") ||
    type.endsWith("-import") ||
    type === "features-imported" ||
    type === "project-created" ||
    type === "project-deleted" ||
    type === "project-archived" ||
    type === "project-revived"
  );
}

/**
 * Keeps each environment's snapshot entries in the cache (`snapshot:<env>` and its names, flag
 * and segment entries) equal to what the flag model says, and announces `snapshot.updated.<env>` with
 * the flags that changed after each write. Commits only mark what changed; one rebuild at a time
 * then works through everything marked meanwhile, so a burst of commits (seeding thousands of
 * flags) costs a few rebuilds, each re-reading only the flags named in the events and rewriting
 * only their entries.
 *
 * Revisions are event ids, and a published revision R promises that the snapshot holds every
 * change up to event R: readers drop an announcement whose revision they already hold. Event ids
 * follow commit order (taken inside the transaction, see `EventStore.record`), but notices can
 * still arrive out of order (two commits finishing together) or not at all (another admin
 * instance during a rolling update). So before a rebuild, the events between the last one marked
 * and the newest notice that did not arrive are read from the event log: once event R has
 * committed, every lower id that will ever exist has too. A rebuild thus reflects all of
 * (last, R], and new content always comes under a higher revision.
 */
export class SnapshotPublisher {
  private readonly flags = new Map<string, FeatureDocument>();
  private segments: ClientSegment[] = [];
  private segmentsJson = "[]";
  private environments: string[] = [];
  private projectEnvironments = new Map<string, Set<string>>();
  private readonly published = new Map<string, EnvironmentState>();
  private pending = emptyPending();
  /** Notices received and not yet turned into pending work. */
  private notices: ChangeNotice[] = [];
  /** When the oldest notice not yet collected arrived (epoch ms): the commit time the lag metric starts from. */
  private noticedAt: number | undefined;
  /** Every event up to this id is reflected in the pending work or what was published. */
  private markedUpTo = 0;
  private running: Promise<void> | undefined;
  /** Set while a failed rebuild waits to be tried again: work that arrives meanwhile waits with it. */
  private retryTimer: NodeJS.Timeout | undefined;
  /** Failed rebuilds in a row, since when, and when that was last logged. */
  private readonly failures: FailureLog;
  private stopped = false;

  constructor(
    private readonly deps: {
      sources: SnapshotSources;
      cache: Cache;
      bus: Bus;
      logger: Logger;
      /** Wait before retrying a failed rebuild, doubled after each further failure up to `maxRetryDelayMs`. */
      retryDelayMs?: number;
      maxRetryDelayMs?: number;
      clock?: () => Date;
    },
  ) {
    this.failures = failureLog(deps.logger, {
      failing: "snapshot rebuild failed; retrying with a full reload, waiting longer after each failure",
      stillFailing: "snapshot rebuilds still failing",
      recovered: "snapshots published again after failed rebuilds",
    });
  }

  /** The revision last announced per environment (for the metrics). */
  publishedRevisions(): Array<[environment: string, revision: number]> {
    return [...this.published].map(([environment, state]) => [environment, state.revision]);
  }

  /** Builds and publishes every environment's snapshot; resolves once they are in the cache. */
  async start(): Promise<void> {
    this.stopped = false;
    this.pending.full = true;
    await this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    await this.running;
  }

  /** Takes note of committed events and starts a rebuild unless one is running or a failed one waits to be retried. */
  notify(events: readonly ChangeNotice[]): void {
    if (events.length > 0) this.noticedAt ??= (this.deps.clock?.() ?? new Date()).getTime();
    this.notices.push(...events);
    void this.kick();
  }

  /**
   * Turns the notices received into pending work, with the events between that were not noticed
   * (yet) read from the log; notices of events already marked (late ones) add nothing.
   */
  private async collect(): Promise<void> {
    const fresh = this.notices.filter((event) => event._id > this.markedUpTo);
    const noticedAt = this.noticedAt;
    this.notices = [];
    this.noticedAt = undefined;
    if (fresh.length === 0) return;
    this.pending.committedAt ??= noticedAt;
    const top = Math.max(...fresh.map((event) => event._id));
    const noticed = new Set(fresh.map((event) => event._id));
    const missing =
      noticed.size < top - this.markedUpTo
        ? (await this.deps.sources.eventsBetween(this.markedUpTo, top)).filter((event) => !noticed.has(event._id))
        : [];
    for (const event of [...fresh, ...missing]) {
      if (needsFullReload(event.type)) this.pending.full = true;
      else if (event.featureName) this.pending.features.add(event.featureName);
      else if (event.type.startsWith("segment-")) this.pending.segments = true;
    }
    this.pending.revision = Math.max(this.pending.revision, top);
    this.markedUpTo = top;
  }

  /**
   * Writes every environment's snapshot again in full and announces each as a full notice, for a
   * cache that lost its data (a Redis restarted empty) or readers that missed announcements (a NATS
   * outage). Resolves with the environments once written; rejects when the cache does not take them.
   * Asked when the cache or the bus is back (or by a reader that found the cache empty), so it does
   * not wait out the delay of a failed rebuild.
   */
  async republish(): Promise<string[]> {
    this.pending.full = true;
    this.pending.rewrite = true;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    await this.kick();
    await this.idle();
    if (this.pending.rewrite) throw new Error("the snapshots could not be written to the cache; retrying");
    return this.environments;
  }

  /** Resolves when everything marked so far has been published. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private kick(): Promise<void> {
    // While a failed rebuild waits, a commit must not bring the next attempt forward (a full reload
    // per write during a Redis outage): its notice is collected when the timer fires.
    if (this.stopped || this.retryTimer) return Promise.resolve();
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async drain(): Promise<void> {
    while (!this.stopped && (this.notices.length > 0 || this.hasPending())) {
      let work = emptyPending();
      try {
        await this.collect();
        work = this.pending;
        this.pending = emptyPending();
        if (work.rewrite) this.published.clear();
        if (work.full || work.rewrite || work.segments || work.features.size > 0) await this.rebuild(work);
        this.failures.succeeded();
      } catch (err) {
        const delayMs = this.failed(err);
        // What was written is unknown: rewrite every entry, and readers reload in full.
        this.published.clear();
        this.pending.full = true;
        this.pending.rewrite = true;
        this.pending.revision = Math.max(this.pending.revision, work.revision);
        this.pending.committedAt = Math.min(this.pending.committedAt ?? Infinity, work.committedAt ?? Infinity);
        if (this.pending.committedAt === Infinity) delete this.pending.committedAt;
        this.retryTimer = setTimeout(() => {
          this.retryTimer = undefined;
          void this.kick();
        }, delayMs);
        return;
      }
    }
  }

  /**
   * Counts a failed rebuild and says how long to wait before the next: 1 s doubling to 30 s. An
   * outage is logged once when it starts, then at most once a minute with the count of failures.
   */
  private failed(err: unknown): number {
    this.failures.failed(err);
    const first = this.deps.retryDelayMs ?? 1000;
    return Math.min(first * 2 ** (this.failures.failures - 1), this.deps.maxRetryDelayMs ?? 30_000);
  }

  private hasPending(): boolean {
    const { full, rewrite, segments, features } = this.pending;
    return full || rewrite || segments || features.size > 0;
  }

  private async rebuild(work: Pending): Promise<void> {
    const { sources } = this.deps;
    let segmentsChanged = false;
    let changedFeatures: Iterable<string>;
    if (work.full) {
      // Read before the model: every event up to it has committed, so what follows reflects it.
      const latest = await sources.latestEventId();
      work.revision = Math.max(work.revision, latest);
      this.markedUpTo = Math.max(this.markedUpTo, latest);
      const [environments, projectEnvironments, flags, segments] = await Promise.all([
        sources.listEnvironments(),
        sources.listProjectEnvironments(),
        sources.listFeatures(),
        sources.listSegments(),
      ]);
      this.environments = environments;
      this.projectEnvironments = new Map();
      for (const { project, environment } of projectEnvironments) {
        let set = this.projectEnvironments.get(project);
        if (!set) this.projectEnvironments.set(project, (set = new Set()));
        set.add(environment);
      }
      const previous = [...this.flags.keys()];
      this.flags.clear();
      for (const flag of flags) this.flags.set(flag._id, flag);
      changedFeatures = new Set([...previous, ...this.flags.keys()]);
      segmentsChanged = this.setSegments(segments);
    } else {
      const names = [...work.features];
      const docs = await Promise.all(names.map((name) => sources.findFeature(name)));
      names.forEach((name, i) => {
        const doc = docs[i];
        if (doc && !doc.archived) this.flags.set(name, doc);
        else this.flags.delete(name);
      });
      changedFeatures = names;
      if (work.segments) segmentsChanged = this.setSegments(await sources.listSegments());
    }

    const names = [...changedFeatures];
    for (const environment of this.environments) {
      const previous = this.published.get(environment);
      const state = previous ?? { revision: 0, features: new Map(), sortedNames: [], namesJson: undefined, namesRevision: 0 };
      const changed: string[] = [];
      const added: string[] = [];
      const removed: string[] = [];
      for (const name of names) {
        const flag = this.flags.get(name);
        const json =
          flag && servedIn(flag, environment, this.projectEnvironments) ? JSON.stringify(toClientFeature(flag, environment)) : undefined;
        const before = state.features.get(name);
        if (json === before) continue;
        changed.push(name);
        if (json === undefined) {
          state.features.delete(name);
          removed.push(name);
        } else {
          state.features.set(name, json);
          if (before === undefined) added.push(name);
        }
      }
      placeNames(state, added, removed);
      if (previous && changed.length === 0 && !segmentsChanged) continue;
      const previousRevision = previous?.revision;
      state.revision = Math.max(work.revision, state.revision);
      this.published.set(environment, state);
      const namesChanged = added.length > 0 || removed.length > 0;
      await this.write(
        environment,
        state,
        previousRevision === undefined ? undefined : { previousRevision, changed, segmentsChanged, namesChanged },
        work.committedAt,
      );
    }
    if (work.full) await this.deps.cache.setJson(cacheKeys.snapshotEnvironments, this.environments);
  }

  /** Replaces the segment list; true when it differs from the one before. */
  private setSegments(docs: SegmentDocument[]): boolean {
    const segments = docs.map(toClientSegment).sort((a, b) => a.id - b.id);
    const json = JSON.stringify(segments);
    if (json === this.segmentsJson) return false;
    this.segments = segments;
    this.segmentsJson = json;
    return true;
  }

  /**
   * Writes the changed entries, then the names when flags came or went, then the index, then
   * announces. `change` is undefined the first time this publisher writes an environment: every
   * entry and the names are written, entries of flags the previous names listed but these do not
   * are removed, and readers reload in full.
   */
  private async write(
    environment: string,
    state: EnvironmentState,
    change: { previousRevision: number; changed: string[]; segmentsChanged: boolean; namesChanged: boolean } | undefined,
    committedAt: number | undefined,
  ): Promise<void> {
    const { cache, bus } = this.deps;
    const written = change ? change.changed : state.sortedNames;
    await Promise.all(
      written.map((name) => {
        const json = state.features.get(name);
        return json === undefined
          ? cache.del(cacheKeys.snapshotFeature(environment, name))
          : cache.set(cacheKeys.snapshotFeature(environment, name), json);
      }),
    );
    if (!change) {
      const left = (await this.namesInCache(environment)).filter((name) => !state.features.has(name));
      await Promise.all(left.map((name) => cache.del(cacheKeys.snapshotFeature(environment, name))));
    }
    if (!change || change.segmentsChanged) await cache.setJson(cacheKeys.snapshotSegments(environment), this.segments);
    // The names are the one entry that grows with the flag count: written only when they change.
    if (!change || change.namesChanged) {
      state.namesJson ??= JSON.stringify(state.sortedNames).slice(0, -1);
      // As `setJson` would write `{ revision, featureNames }`, around the kept names.
      await cache.set(cacheKeys.snapshotNames(environment), `{"revision":${state.revision},"featureNames":${state.namesJson}]}`);
      state.namesRevision = state.revision;
    }
    const index: SnapshotIndex = { environment, revision: state.revision, namesRevision: state.namesRevision };
    await cache.setJson(cacheKeys.snapshotIndex(environment), index);
    const notice: SnapshotUpdated = {
      environment,
      revision: state.revision,
      ...(change
        ? { previousRevision: change.previousRevision, changedFeatures: change.changed, segmentsChanged: change.segmentsChanged }
        : {}),
      ...(committedAt !== undefined ? { committedAt: new Date(committedAt).toISOString() } : {}),
    };
    bus.publish(topics.snapshotUpdated.of(environment), notice);
  }

  /**
   * The names the cache lists for the environment, as the publisher before this one wrote them;
   * none when it holds none it can read (an entry that is not JSON must not stop every rebuild).
   */
  private async namesInCache(environment: string): Promise<string[]> {
    const { cache } = this.deps;
    const names = snapshotNamesSchema.safeParse(parsed(await cache.get(cacheKeys.snapshotNames(environment))));
    if (names.success) return names.data.featureNames;
    // A cache written before the names had an entry of their own lists them in the index.
    const legacy = snapshotNamesSchema
      .pick({ featureNames: true })
      .safeParse(parsed(await cache.get(cacheKeys.snapshotIndex(environment))));
    return legacy.success ? legacy.data.featureNames : [];
  }
}

/** The JSON value of `text`, or undefined when there is none. */
function parsed(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
