import type { Express } from "express";
import { NotReady } from "@vexil/errors";
import { createHttpApp, listen, type RunningServer } from "@vexil/http";
import type { Logger } from "@vexil/logger";

/** Wait before trying again to open an engine that was unreachable at start: 0.5 s doubling to 10 s. */
const reopenDelayMs = (attempt: number) => Math.min(500 * 2 ** attempt, 10_000);

/**
 * A process that listens from its first moment, before it can serve: while NATS, Redis or a store
 * is unreachable at start it stays up, live but not ready (`/ready` says what it waits for, every
 * other path answers 503), and tries again until it can open them all, instead of exiting into a
 * restart loop. `serve` then hands every request to the real app.
 */
export interface StartingServer {
  server: RunningServer;
  /** Opens an engine, trying again with backoff for as long as it is unreachable. */
  openWhenReachable<T>(engine: string, open: () => Promise<T>): Promise<T>;
  /** What the process is doing now, for `/ready` and the 503 bodies. */
  startingWith(step: string): void;
  serve(app: Express): void;
}

export async function listenWhileStarting(options: {
  name: string;
  logger: Logger;
  trustProxy?: string;
  port: number;
  host?: string;
}): Promise<StartingServer> {
  const { name, logger } = options;
  let step = "opening its engines";
  const startingApp = createHttpApp({
    logger,
    trustProxy: options.trustProxy,
    routers: [(_req, _res, next) => next(new NotReady(`${name} is starting: ${step}`))],
    readiness: [
      {
        name: "start",
        check: async () => {
          throw new Error(step);
        },
      },
    ],
  });
  const server = await listen(startingApp, options.port, options.host);
  logger.info({ port: server.port }, `${name} listening; starting`);
  return {
    server,
    async openWhenReachable(engine, open) {
      for (let attempt = 0; ; attempt++) {
        try {
          return await open();
        } catch (err) {
          step = `${engine} unreachable (${err instanceof Error ? err.message : String(err)}); trying again`;
          logger.warn({ err, attempt }, `${engine} unreachable at start; trying again until it answers`);
          await new Promise((resolve) => setTimeout(resolve, reopenDelayMs(attempt)));
        }
      }
    },
    startingWith(next) {
      step = next;
    },
    serve(app) {
      server.server.removeListener("request", startingApp);
      server.server.on("request", app);
      logger.info({ port: server.port }, `${name} started`);
    },
  };
}
