import type { Router } from "express";
import { createHttpApp, listen, type ReadinessCheck, type RunningServer } from "@vexil/http";
import type { Logger } from "@vexil/logger";
import { engineReadiness, openBus, openCache, openStore, type Engines } from "./engines.js";
import type { PlatformConfig } from "./platform-config.js";
import { onShutdown } from "./shutdown.js";

/** What every service factory returns, so one entry point and the gateway can run any of them. */
export interface VexilService {
  router: Router;
  readiness: ReadinessCheck[];
  start(): Promise<void>;
  /** Stops consumers and timers; engines are closed by whoever opened them. */
  stop(): Promise<void>;
}

export async function openEngines(config: PlatformConfig, service: string, logger: Logger): Promise<Engines> {
  const store = await openStore(config, service);
  const bus = await openBus(config, service, logger);
  const cache = await openCache(config, logger);
  return { store, bus, cache };
}

export async function closeEngines({ store, bus, cache }: Engines): Promise<void> {
  await bus.close();
  await cache.close();
  await store.close();
}

/**
 * The whole life of a service running as its own process: open its engines, start it, serve
 * its router with health and readiness, and on SIGTERM stop in reverse order.
 */
export async function runServiceProcess<C extends PlatformConfig & { PORT: number }>({
  name,
  config,
  logger,
  create,
}: {
  name: string;
  config: C;
  logger: Logger;
  create: (engines: Engines) => Promise<VexilService>;
}): Promise<{ service: VexilService; server: RunningServer }> {
  const engines = await openEngines(config, name, logger);
  const service = await create(engines);
  await service.start();
  const app = createHttpApp({
    logger,
    trustProxy: config.TRUST_PROXY,
    routers: [service.router],
    readiness: [...engineReadiness(engines), ...service.readiness],
  });
  const server = await listen(app, config.PORT);
  logger.info({ port: server.port }, `${name} listening`);
  onShutdown(logger, [() => server.close(), () => service.stop(), () => closeEngines(engines)]);
  return { service, server };
}
