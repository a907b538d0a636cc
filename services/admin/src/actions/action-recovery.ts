import type { Logger } from "@vexil/logger";
import type { ActionRunner } from "./action-runner.js";

/**
 * Finishes action set runs that an admin instance left half-done (it stopped mid-run): once at
 * start, then every `intervalMs`, so a run interrupted on one instance is finished by another.
 */
export function startActionRecovery(
  runner: Pick<ActionRunner, "recoverInterrupted">,
  { intervalMs, logger }: { intervalMs: number; logger: Logger },
) {
  let running: Promise<void> | undefined;
  const sweep = () => {
    // One sweep at a time; a slow one simply delays the next.
    running ??= runner
      .recoverInterrupted()
      .then((count) => {
        if (count > 0) logger.info({ count }, "finished interrupted action set runs");
      })
      .catch((err: unknown) => logger.error({ err }, "could not recover interrupted action set runs"))
      .finally(() => {
        running = undefined;
      });
  };
  sweep();
  const timer = setInterval(sweep, intervalMs);
  timer.unref();
  return {
    async stop(): Promise<void> {
      clearInterval(timer);
      await running;
    },
  };
}
