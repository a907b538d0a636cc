import type { Bus, Subscription } from "@vexil/bus";
import type { Cache } from "@vexil/cache";
import {
  snapshotCacheKey,
  snapshotEnvironmentsKey,
  storedSnapshotSchema,
  topics,
  type DeltaEvent,
} from "@vexil/contracts";
import { NotReady } from "@vexil/errors";
import type { Logger } from "@vexil/logger";
import { z } from "zod";
import { EnvironmentSnapshot } from "./environment-snapshot.js";

export type SnapshotListener = (snapshot: EnvironmentSnapshot, changes: readonly DeltaEvent[]) => void;

/** Delta events kept per environment, for `/api/client/delta` and streaming resumes. */
interface History {
  /** Every change after this revision is in `events`. */
  since: number;
  events: DeltaEvent[];
}

/**
 * The compiled snapshots, one per environment: hydrated from the cache at start, swapped when the
 * admin announces `snapshot.updated.<env>`. Requests only ever read memory from here.
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
      void this.load(notice.data.environment);
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
  private load(environment: string): Promise<void> {
    const next = (this.loading.get(environment) ?? Promise.resolve()).then(() => this.loadNow(environment));
    const tracked = next.catch((err: unknown) => {
      this.deps.logger.error({ err, environment }, "loading a snapshot failed");
    });
    this.loading.set(environment, tracked);
    return tracked;
  }

  private async loadNow(environment: string): Promise<void> {
    const raw = await this.deps.cache.getJson(snapshotCacheKey(environment));
    if (raw === null) return;
    const stored = storedSnapshotSchema.parse(raw);
    const previous = this.snapshots.get(environment);
    if (previous && previous.revision >= stored.revision) return;
    const { snapshot, changes } = EnvironmentSnapshot.from(stored, previous);
    this.snapshots.set(environment, snapshot);
    this.remember(environment, previous, snapshot, changes);
    for (const listener of this.listeners) {
      try {
        listener(snapshot, changes);
      } catch (err) {
        this.deps.logger.error({ err, environment }, "a snapshot listener failed");
      }
    }
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
