import type { Logger } from "@vexil/logger";

const dayMs = 24 * 60 * 60 * 1000;

export interface Retention {
  /** Deletes what is older than the retention now; resolves with how many were deleted. */
  prune(): Promise<number>;
  /** Stops the timer; resolves once a run under way has finished, so the store can be closed after it. */
  stop(): Promise<void>;
}

/**
 * Keeps a growing collection to `days` days: `prune(before)` deletes what is older than `before`,
 * at start and every `everyMs` after (an hour). `days` 0 keeps everything. A failed run is logged
 * and tried again at the next one.
 */
export function startRetention({
  what,
  days,
  prune,
  clock = () => new Date(),
  logger,
  everyMs = 60 * 60 * 1000,
}: {
  /** Named in the log, e.g. "the event log". */
  what: string;
  days: number;
  prune: (before: Date) => Promise<number>;
  clock?: () => Date;
  logger: Logger;
  everyMs?: number;
}): Retention {
  const pruneNow = async () => (days === 0 ? 0 : prune(new Date(clock().getTime() - days * dayMs)));
  const running = new Set<Promise<void>>();
  const run = () => {
    const done = pruneNow().then(
      (deleted) => {
        if (deleted > 0) logger.info({ deleted, days }, `pruned ${what}`);
      },
      (err: unknown) => logger.warn({ err }, `pruning ${what} failed`),
    );
    running.add(done);
    void done.finally(() => running.delete(done));
  };
  run();
  const timer = setInterval(run, everyMs);
  timer.unref();
  return {
    prune: pruneNow,
    async stop() {
      clearInterval(timer);
      await Promise.all(running);
    },
  };
}
