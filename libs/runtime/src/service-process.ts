import type { ErrorRequestHandler, Router } from "express";
import { createHttpApp, withFastRoutes, type FastRoute, type HealthDetails, type ReadinessCheck, type RunningServer } from "@vexil/http";
import type { Logger } from "@vexil/logger";
import { createMetricsRegistry, type Registry } from "@vexil/metrics";
import type { StoreFormat } from "@vexil/store";
import { registerEngineMetrics } from "./engine-metrics.js";
import { engineChecks, openBus, openCache, openStore, type Engines, type EnginesWithoutStore } from "./engines.js";
import type { PlatformConfig, StorelessPlatformConfig } from "./platform-config.js";
import { onShutdown } from "./shutdown.js";
import { startWhenReachable } from "./starting-server.js";
import { openStoreInFormat } from "./store-format.js";

/** What every service factory returns, so one entry point and the gateway can run any of them. */
export interface VexilService {
  router: Router;
  /** What it needs to serve its traffic, beyond its store: `/ready` is 503 while one fails. */
  readiness: ReadinessCheck[];
  /** Its own part of the `/health` details: why it serves less well now (e.g. how old its snapshot is). */
  health?: () => HealthDetails;
  /** Error handlers for the service's own paths, before the API's generic one (a protocol with its own error bodies). */
  errorHandlers?: ErrorRequestHandler[];
  /** Routes answered before express (the SDK hot paths), each falling back to `router` for what it does not answer. */
  fastRoutes?: FastRoute[];
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
  const store = needs.store ? await openStore(config, service, logger) : undefined;
  const bus = await openBus(config, service, logger);
  const cache = await openCache(config, logger);
  return store ? { store, bus, cache } : { bus, cache };
}

export async function closeEngines({ bus, cache, ...rest }: Engines | EnginesWithoutStore): Promise<void> {
  await bus.close();
  await cache.close();
  if ("store" in rest) await rest.store.close();
}

type ServiceProcessOptions = { name: string; logger: Logger } & (
  | {
      config: PlatformConfig & { PORT: number };
      create: (engines: Engines, metrics: Registry) => Promise<VexilService>;
      /** The formats of the service's store: it is brought to the current one before `create` runs. */
      storeFormat: StoreFormat;
      store?: true;
    }
  | {
      config: StorelessPlatformConfig & { PORT: number };
      create: (engines: EnginesWithoutStore, metrics: Registry) => Promise<VexilService>;
      store: false;
    }
);

/**
 * The whole life of a service running as its own process: open its engines (a store only if it
 * keeps data: `store: false` otherwise; listening, not ready, while Redis or the store is
 * unreachable: see `startWhenReachable`; NATS is reached in the background), bring its store to
 * the current format (see `openStoreInFormat`), start it, serve its router with health and
 * readiness, and on SIGTERM stop in reverse order.
 */
export async function runServiceProcess(options: ServiceProcessOptions): Promise<{ service: VexilService; server: RunningServer }> {
  const { name, config, logger } = options;
  const starting = startWhenReachable({ name, logger, trustProxy: config.TRUST_PROXY, port: config.PORT });
  let engines: Engines | EnginesWithoutStore | undefined;
  let service: VexilService | undefined;
  onShutdown(logger, [() => starting.close(), () => service?.stop(), () => (engines ? closeEngines(engines) : undefined)]);

  const metrics = createMetricsRegistry();
  // NATS is not waited for: the service starts and serves what it can, and sets up what needs NATS once it is reached.
  const bus = await openBus(config, name, logger);
  const cache = await starting.openWhenReachable("Redis", () => openCache(config, logger));
  registerEngineMetrics(metrics, { bus, cache });
  if (options.store === false) {
    engines = { bus, cache };
    starting.startingWith("starting the service");
    service = await options.create(engines, metrics);
  } else {
    const store = await openStoreInFormat({ starting, config: options.config, format: options.storeFormat, logger });
    engines = { store, bus, cache };
    starting.startingWith("starting the service");
    service = await options.create(engines, metrics);
  }
  await service.start();
  const checks = engineChecks(engines);
  const app = createHttpApp({
    logger,
    trustProxy: config.TRUST_PROXY,
    sdkRequestLogLevel: config.SDK_REQUEST_LOG_LEVEL,
    routers: [service.router],
    readiness: [...checks.readiness, ...service.readiness],
    dependencies: checks.dependencies,
    healthDetails: service.health,
    metrics: { registry: metrics, token: config.METRICS_TOKEN },
    errorHandlers: service.errorHandlers,
  });
  const server = await starting.serve(
    withFastRoutes(app, service.fastRoutes ?? [], {
      logger,
      metrics,
      sdkRequestLogLevel: config.SDK_REQUEST_LOG_LEVEL,
    }),
  );
  return { service, server };
}
