import type { RequestListener } from "node:http";
import { NotReady } from "@vexil/errors";
import { createHttpApp, listen, type RunningServer } from "@vexil/http";
import type { Logger } from "@vexil/logger";

/** Wait before trying again to open an engine that was unreachable at start: 0.5 s doubling to 10 s. */
const reopenDelayMs = (attempt: number) => Math.min(500 * 2 ** attempt, 10_000);

/**
 * The start of a process that may have to wait for NATS, Redis or a store. A start that finds
 * them all listens only once it serves everything, so `/health` answering means the API answers
 * (as with Unleash, and what scripts that wait for `/health` expect). A start that finds one
 * unreachable listens at once instead of exiting into a restart loop: live but not ready (`/ready`
 * says what it waits for, every other path answers 503), trying again until it can open them all.
 */
export interface StartingServer {
  /** Opens an engine, trying again with backoff (and listening meanwhile) for as long as it is unreachable. */
  openWhenReachable<T>(engine: string, open: () => Promise<T>): Promise<T>;
  /** What the process is doing now, for `/ready` and the 503 bodies while it waits. */
  startingWith(step: string): void;
  /** Serves the real app: on the listener opened while waiting, or on a new one. */
  serve(app: RequestListener): Promise<RunningServer>;
  /** Closes the listener, whichever is open. */
  close(): Promise<void>;
}

export function startWhenReachable(options: {
  name: string;
  logger: Logger;
  trustProxy?: string;
  port: number;
  host?: string;
}): StartingServer {
  const { name, logger } = options;
  let step = "opening its engines";
  let waiting: Promise<RunningServer> | undefined;
  let serving: RunningServer | undefined;
  const waitingApp = createHttpApp({
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
  const listenWhileWaiting = () =>
    (waiting ??= listen(waitingApp, options.port, options.host).then((server) => {
      logger.info({ port: server.port }, `${name} listening, not ready: ${step}`);
      return server;
    }));
  return {
    async openWhenReachable(engine, open) {
      for (let attempt = 0; ; attempt++) {
        try {
          return await open();
        } catch (err) {
          step = `${engine} unreachable (${err instanceof Error ? err.message : String(err)}); trying again`;
          logger.warn({ err, attempt }, `${engine} unreachable at start; trying again until it answers`);
          await listenWhileWaiting();
          await new Promise((resolve) => setTimeout(resolve, reopenDelayMs(attempt)));
        }
      }
    },
    startingWith(next) {
      step = next;
    },
    async serve(app) {
      if (waiting) {
        serving = await waiting;
        serving.server.removeListener("request", waitingApp);
        serving.server.on("request", app);
      } else {
        serving = await listen(app, options.port, options.host);
      }
      logger.info({ port: serving.port }, `${name} started`);
      return serving;
    },
    async close() {
      const server = serving ?? (await waiting);
      await server?.close();
    },
  };
}
