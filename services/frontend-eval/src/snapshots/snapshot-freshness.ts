import type { Bus } from "@vexil/bus";
import type { Cache } from "@vexil/cache";
import type { Logger } from "@vexil/logger";
import type { SnapshotHolder } from "./snapshot-holder.js";

/** Why the snapshots served may miss changes. */
export type DegradedReason = "nats" | "redis" | "reload";
export const degradedReasons: readonly DegradedReason[] = ["nats", "redis", "reload"];

/** How long a cache ping may take before Redis counts as away. */
const pingTimeoutMs = 1000;

/**
 * Watches what keeps the snapshots current, once a second: NATS (announcements of changes) and
 * Redis (where they are read from). frontend-eval stays ready whatever happens to them; this says
 * instead how stale what it serves may be. While NATS is away changes are not announced, so each
 * environment's revision is read from the cache every check and the snapshot read again when it
 * moved: admin keeps writing snapshots to Redis meanwhile, and SDKs keep getting its changes.
 *
 * The age of an environment's snapshot is 0 while it follows every change; otherwise the time since
 * it was last known current: when the first thing keeping it current failed, or its last read
 * from the cache if that came after.
 */
export class SnapshotFreshness {
  private natsDownSince: number | undefined;
  private redisDownSince: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;

  constructor(
    private readonly deps: {
      bus: Bus;
      cache: Cache;
      holder: SnapshotHolder;
      logger: Logger;
      now?: () => number;
      checkEveryMs?: number;
    },
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.check(), this.deps.checkEveryMs ?? 1000);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One round of checks (at most one at a time). */
  check(): Promise<void> {
    this.checking ??= this.checkNow().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async checkNow(): Promise<void> {
    const { bus, cache, holder } = this.deps;
    const now = this.now();
    const natsUp = await bus.ping().then(
      () => true,
      () => false,
    );
    const redisUp = await withTimeout(cache.ping(), pingTimeoutMs).then(
      () => true,
      () => false,
    );
    this.natsDownSince = natsUp ? undefined : (this.natsDownSince ?? now);
    this.redisDownSince = redisUp ? undefined : (this.redisDownSince ?? now);
    if (natsUp || !redisUp) return;
    for (const [environment] of holder.revisions()) {
      await holder.refreshIfMoved(environment).catch((err: unknown) => {
        this.deps.logger.debug({ err, environment }, "could not check the snapshot's revision in the cache");
      });
    }
  }

  /** Seconds each environment's snapshot may be missing changes for (0: it follows every change). */
  ages(): Array<[environment: string, seconds: number]> {
    const now = this.now();
    return this.deps.holder.revisions().map(([environment]) => {
      const { loadedAt, failingSince } = this.deps.holder.freshness(environment);
      const since = [this.natsDownSince, this.redisDownSince, failingSince].filter((t): t is number => t !== undefined);
      if (since.length === 0) return [environment, 0];
      const currentAt = Math.max(Math.min(...since), loadedAt ?? 0);
      return [environment, Math.max(0, now - currentAt) / 1000];
    });
  }

  /** What makes the snapshots stale now, each with since when. */
  reasons(): Array<{ reason: DegradedReason; since: number; message: string }> {
    const out: Array<{ reason: DegradedReason; since: number; message: string }> = [];
    if (this.natsDownSince !== undefined) {
      out.push({
        reason: "nats",
        since: this.natsDownSince,
        message: "NATS unreachable: changes are not announced; the cache is read for them every second instead",
      });
    }
    if (this.redisDownSince !== undefined) {
      out.push({
        reason: "redis",
        since: this.redisDownSince,
        message: "Redis unreachable: changes cannot be read; serving the snapshots held",
      });
    }
    const failing = this.deps.holder
      .revisions()
      .map(([environment]) => [environment, this.deps.holder.freshness(environment).failingSince] as const)
      .filter((entry): entry is readonly [string, number] => entry[1] !== undefined);
    if (failing.length > 0) {
      out.push({
        reason: "reload",
        since: Math.min(...failing.map(([, since]) => since)),
        message: `reading the snapshot again fails for ${failing.map(([environment]) => environment).join(", ")}; serving the one held`,
      });
    }
    return out;
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}
