import { failureLog } from "@vexil/logger";
import type { BusLogger } from "./bus.js";
import type { Bus, EventTopic } from "./topic.js";

/** An event written with the change that caused it, to publish on its (concrete) topic. */
export interface OutboxEvent {
  id: string;
  topic: EventTopic<unknown> & { readonly wildcard?: false };
  payload: unknown;
}

/** The store side of the outbox, oldest event first. */
export interface OutboxSource {
  pending(limit: number): Promise<OutboxEvent[]>;
  markPublished(ids: string[]): Promise<void>;
}

export interface OutboxRelayOptions {
  source: OutboxSource;
  bus: Pick<Bus, "publishEvent">;
  logger: BusLogger;
  /** Poll period; `poke()` runs sooner. Default 1000 ms. */
  intervalMs?: number;
  /** Events read per batch. Default 100. */
  batchSize?: number;
}

export interface OutboxRelay {
  /** Runs a pass now (or right after the one in progress), e.g. after a write. */
  poke(): void;
  /** Runs a fresh pass and resolves with the number of events it published and marked. */
  runOnce(): Promise<number>;
  /** Stops polling and waits for the pass in flight. */
  stop(): Promise<void>;
}

/**
 * Publishes outbox events with `msgId = event id`, then marks them published. A crash or failure
 * between the two republishes the same ids on the next pass and JetStream's duplicate window drops
 * the copies, so consumers see each event once as long as the relay recovers within that window
 * (consumers stay idempotent on the id for anything older).
 */
export function startOutboxRelay({ source, bus, logger, intervalMs = 1000, batchSize = 100 }: OutboxRelayOptions): OutboxRelay {
  if (!(intervalMs > 0)) throw new RangeError(`intervalMs must be positive, got ${intervalMs}`);
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);

  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<number> | null = null;
  let rerun = false;
  // While NATS (or the store) is away every tick fails: one line when it starts, one a minute, one when it ends.
  const failures = failureLog(logger, {
    failing: "outbox relay pass failed; retrying on the next tick",
    stillFailing: "outbox relay passes still failing",
    recovered: "outbox relay publishing again after failed passes",
  });

  async function pass(): Promise<number> {
    let published = 0;
    try {
      // Drain the backlog batch by batch; a short batch means the outbox is empty.
      for (;;) {
        const batch = await source.pending(batchSize);
        const done: string[] = [];
        try {
          for (const event of batch) {
            await bus.publishEvent(event.topic, event.payload, { msgId: event.id });
            done.push(event.id);
          }
        } finally {
          if (done.length > 0) {
            await source.markPublished(done);
            published += done.length;
          }
        }
        if (batch.length < batchSize || stopped) break;
      }
      failures.succeeded();
    } catch (err) {
      failures.failed(err, { published });
    }
    return published;
  }

  function run(): Promise<number> {
    if (running) {
      rerun = true;
      return running;
    }
    if (timer) clearTimeout(timer);
    timer = null;
    running = pass().finally(() => {
      running = null;
      if (stopped) return;
      if (rerun) {
        rerun = false;
        void run();
      } else {
        timer = setTimeout(() => void run(), intervalMs);
      }
    });
    return running;
  }

  void run();

  return {
    poke() {
      if (!stopped) void run();
    },
    async runOnce() {
      if (stopped) throw new Error("outbox relay is stopped");
      // A pass already in flight may have read the outbox before the caller's write: run a fresh one.
      if (running) await running;
      return run();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      if (running) await running;
    },
  };
}
