import type { Logger } from "@vexil/logger";

/**
 * Runs the given steps once, in order, on SIGTERM or SIGINT (HTTP first, engines last), then exits.
 * A second signal exits at once.
 */
export function onShutdown(logger: Logger, steps: Array<() => Promise<unknown> | unknown>): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, "shutting down");
    let code = 0;
    for (const step of steps) {
      try {
        await step();
      } catch (err) {
        code = 1;
        logger.error({ err }, "shutdown step failed");
      }
    }
    logger.info("stopped");
    process.exit(code);
  };
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
}
