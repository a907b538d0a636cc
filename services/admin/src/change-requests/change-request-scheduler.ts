import { randomUUID } from "node:crypto";
import type { Logger } from "@vexil/logger";
import type { ChangeRequestReview } from "./change-request-review.js";
import type { ChangeRequestStore } from "./change-request-store.js";

export interface ChangeRequestScheduler {
  /** Re-reads the pending schedules and re-arms the timer (after a request is scheduled). */
  poke(): void;
  stop(): void;
}

/**
 * Applies scheduled change requests when their time comes. Every admin instance runs one: it arms a
 * timer for the nearest pending schedule (and looks again at least every `pollMs`, to see schedules
 * made elsewhere), claims a due request with a conditional update so only one instance applies it,
 * and on start picks up whatever was pending while it was down.
 */
export function startChangeRequestScheduler({
  store,
  review,
  logger,
  clock,
  pollMs = 30_000,
  leaseMs = 60_000,
}: {
  store: ChangeRequestStore;
  review: Pick<ChangeRequestReview, "applyScheduled">;
  logger: Logger;
  clock: () => Date;
  pollMs?: number;
  leaseMs?: number;
}): ChangeRequestScheduler {
  const claimant = randomUUID();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();

  async function tick(): Promise<void> {
    const now = clock();
    let next = now.getTime() + pollMs;
    for (const request of await store.pendingSchedules()) {
      const schedule = request.schedule!;
      const due = schedule.scheduledAt.getTime();
      if (due > now.getTime()) {
        next = Math.min(next, due);
        continue;
      }
      if (!(await store.claimSchedule(request._id, schedule, claimant, now, leaseMs))) continue;
      await review.applyScheduled(request._id);
    }
    arm(next - clock().getTime());
  }

  function arm(delayMs: number): void {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(run, Math.max(0, Math.min(delayMs, pollMs)));
    timer.unref();
  }

  function run(): void {
    running = running.then(tick).catch((err: unknown) => {
      logger.error({ err }, "applying scheduled change requests failed");
      arm(pollMs);
    });
  }

  run();
  return {
    poke: run,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
