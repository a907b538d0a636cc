import type { ErrorRequestHandler, Router } from "express";
import { createHttpApp, listen, type ReadinessCheck, type RunningServer } from "@vexil/http";
import { NotReady } from "@vexil/errors";
import type { Logger } from "@vexil/logger";
import { createMetricsRegistry, type Registry } from "@vexil/metrics";
import { engineReadiness, openBus, openCache, openStore, type Engines, type EnginesWithoutStore } from "./engines.js";
import type { PlatformConfig } from "./platform-config.js";
import { onShutdown } from "./shutdown.js";

/** What every service factory returns, so one entry point and the gateway can run any of them. */
export interface VexilService {
  router: Router;
  readiness: ReadinessCheck[];
  /** Error handlers for the service's own paths, before the API's generic one (a protocol with its own error bodies). */
  errorHandlers?: ErrorRequestHandler[];
  start(): Promise<void>;
  /** Stops consumers and timers; engines are closed by whoever opened them. */
  stop(): Promise<void>;
}

export async function openEngines(config: PlatformConfig, service: string, logger: Logger): Promise<Engines>;
export async function openEngines(
  config: PlatformConfig,
  service: string,
  logger: Logger,
  needs: { store: false },
): Promise<EnginesWithoutStore>;
export async function openEngines(
  config: PlatformConfig,
  service: string,
  logger: Logger,
  needs: { store: boolean } = { store: true },
): Promise<Engines | EnginesWithoutStore> {
  const store = needs.store ? await openStore(config, service) : undefined;
  const bus = await openBus(config, service, logger);
  const cache = await openCache(config, logger);
  return store ? { store, bus, cache } : { bus, cache };
}

export async function closeEngines({ bus, cache, ...rest }: Engines | EnginesWithoutStore): Promise<void> {
  await bus.close();
  await cache.close();
  if ("store" in rest) await rest.store.close();
}

type ServiceProcessOptions<C> = { name: string; config: C; logger: Logger } & (
  | { create: (engines: Engines, metrics: Registry) => Promise<VexilService>; store?: true }
  | { create: (engines: EnginesWithoutStore, metrics: Registry) => Promise<VexilService>; store: false }
);

/** Wait before trying again to open an engine that was unreachable at start: 0.5 s doubling to 10 s. */
const reopenDelayMs = (attempt: number) => Math.min(500 * 2 ** attempt, 10_000);

/**
 * The whole life of a service running as its own process: open its engines (a store only if it
 * keeps data: `store: false` otherwise), start it, serve its router with health and readiness, and
 * on SIGTERM stop in reverse order.
 *
 * It listens from the first moment: while NATS, Redis or the store is unreachable at start, the
 * process stays up, live but not ready (`/ready` says which one and why), and tries again until it
 * can open them all, instead of exiting into a restart loop.
 */
export async function runServiceProcess<C extends PlatformConfig & { PORT: number }>(
  options: ServiceProcessOptions<C>,
): Promise<{ service: VexilService; server: RunningServer }> {
  const { name, config, logger } = options;
  let startingBecause = "opening its engines";
  const startingApp = createHttpApp({
    logger,
    trustProxy: config.TRUST_PROXY,
    routers: [(_req, _res, next) => next(new NotReady(`${name} is starting: ${startingBecause}`))],
    readiness: [
      {
        name: "start",
        check: async () => {
          throw new Error(startingBecause);
        },
      },
    ],
  });
  const server = await listen(startingApp, config.PORT);
  logger.info({ port: server.port }, `${name} listening; starting`);
  let engines: Engines | EnginesWithoutStore | undefined;
  let service: VexilService | undefined;
  onShutdown(logger, [() => server.close(), () => service?.stop(), () => (engines ? closeEngines(engines) : undefined)]);

  async function openPatiently<T>(engine: string, open: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await open();
      } catch (err) {
        startingBecause = `${engine} unreachable (${err instanceof Error ? err.message : String(err)}); trying again`;
        logger.warn({ err, attempt }, `${engine} unreachable at start; trying again until it answers`);
        await new Promise((resolve) => setTimeout(resolve, reopenDelayMs(attempt)));
      }
    }
  }

  const metrics = createMetricsRegistry();
  const bus = await openPatiently("NATS", () => openBus(config, name, logger));
  const cache = await openPatiently("Redis", () => openCache(config, logger));
  if (options.store === false) {
    engines = { bus, cache };
    startingBecause = "starting the service";
    service = await options.create(engines, metrics);
  } else {
    engines = { store: await openPatiently("the store", () => openStore(config, name)), bus, cache };
    startingBecause = "starting the service";
    service = await options.create(engines, metrics);
  }
  await service.start();
  const app = createHttpApp({
    logger,
    trustProxy: config.TRUST_PROXY,
    routers: [service.router],
    readiness: [...engineReadiness(engines), ...service.readiness],
    metrics: { registry: metrics, token: config.METRICS_TOKEN },
    errorHandlers: service.errorHandlers,
  });
  // Requests from now on go to the service; the starting app answered those before.
  server.server.removeListener("request", startingApp);
  server.server.on("request", app);
  logger.info({ port: server.port }, `${name} started`);
  return { service, server };
}
