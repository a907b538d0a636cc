import { addonDeliveryStoreFormat, createAddonDeliveryService, type AddonDeliverySettings } from "@vexil/addon-delivery";
import { adminStoreFormat, createAdminDeps, createAdminService, type AdminSettings, type InitialAdmin } from "@vexil/admin";
import { createFrontendEvalService, type FrontendEvalConfig } from "@vexil/frontend-eval";
import { createHttpApp, withFastRoutes } from "@vexil/http";
import type { SecretBox } from "@vexil/auth";
import type { Logger } from "@vexil/logger";
import { createMetricsRegistry } from "@vexil/metrics";
import {
  engineChecks,
  openBus,
  openCache,
  openStoreInFormat,
  registerEngineMetrics,
  startWhenReachable,
  storeWritesCheck,
  type Engines,
  type PlatformConfig,
  type VexilService,
} from "@vexil/runtime";
import { createSignalIngestService, signalIngestStoreFormat, type SignalIngestSettings } from "@vexil/signal-ingest";
import type { StoreEngine } from "@vexil/store";
import { createAdminUiRouter } from "./admin-ui.js";
import { createDocsRouter } from "./docs.js";
import { dispatchByPrefix } from "./routes.js";

export interface SystemSettings {
  platform: PlatformConfig;
  admin: AdminSettings;
  /** Seals the secrets admin stores. */
  secrets: SecretBox;
  frontendEval: Pick<FrontendEvalConfig, "FRONTEND_API_ENABLED"> &
    Partial<
      Pick<
        FrontendEvalConfig,
        | "SDK_STREAMS_LIMIT"
        | "SDK_STREAMS_PER_TOKEN_LIMIT"
        | "SDK_STREAMS_ADMIT_PER_SECOND"
        | "SDK_STREAM_MAX_UNSENT_BYTES"
        | "UNLEASH_FRONTEND_API_ORIGINS"
      >
    >;
  /** Delivery settings; `allowPrivateUrls` also applies to admin unless its own setting says otherwise. */
  addonDelivery?: Partial<AddonDeliverySettings>;
  /** Signal limits and retention; those not given take their defaults (the spec's values for limits). */
  signalIngest?: Partial<SignalIngestSettings>;
  /** 0 picks a free port. */
  port: number;
  host?: string;
}

export interface RunningSystem {
  url: string;
  port: number;
  /** The admin token created on a first start without configured tokens. */
  createdAdminSecret: string | undefined;
  /** The first admin user: created by this start, still on the default password. */
  initialAdmin: InitialAdmin | undefined;
  stop(): Promise<void>;
}

/**
 * Every service in one process behind one port: each keeps its own store, and all share one bus
 * and one cache, exactly as separate processes would share NATS and Redis. `logger` is the root:
 * the gateway and each service log through their own `child({ service })` of it.
 */
export async function startSystem(settings: SystemSettings, logger: Logger): Promise<RunningSystem> {
  const { platform } = settings;
  const child = (service: string) => logger.child({ service });
  // Redis down at start leaves the process up and not ready, not exited; NATS is reached in the background.
  const starting = startWhenReachable({
    name: "vexil",
    logger: child("gateway"),
    trustProxy: platform.TRUST_PROXY,
    port: settings.port,
    host: settings.host,
  });
  const bus = await openBus(platform, "vexil", logger);
  const cache = await starting.openWhenReachable("Redis", () => openCache(platform, logger));
  const stores = new Map<string, StoreEngine>();
  // Every store is brought to its service's current format before any service reads one.
  for (const format of [adminStoreFormat, signalIngestStoreFormat, addonDeliveryStoreFormat]) {
    stores.set(format.service, await openStoreInFormat({ starting, config: platform, format, logger: child(format.service) }));
  }
  const enginesFor = (service: string): Engines => ({ store: stores.get(service)!, bus, cache });
  starting.startingWith("starting the services");
  // One registry for the process: the services' metrics and the requests, on one scrape.
  const metrics = createMetricsRegistry();
  registerEngineMetrics(metrics, { bus, cache });

  const admin = createAdminService(
    await createAdminDeps({
      engines: enginesFor("admin"),
      settings: { ADDONS_ALLOW_PRIVATE_URLS: settings.addonDelivery?.allowPrivateUrls, ...settings.admin },
      secrets: settings.secrets,
      logger: child("admin"),
      metrics,
    }),
  );
  const frontendEval = await createFrontendEvalService({
    engines: { bus, cache },
    settings: settings.frontendEval,
    logger: child("frontend-eval"),
    metrics,
  });
  const signalIngest = await createSignalIngestService({
    engines: enginesFor("signal-ingest"),
    logger: child("signal-ingest"),
    settings: settings.signalIngest,
    metrics,
  });
  const addonDelivery = await createAddonDeliveryService({
    engines: enginesFor("addon-delivery"),
    logger: child("addon-delivery"),
    settings: settings.addonDelivery,
    metrics,
  });
  const services: VexilService[] = [admin, frontendEval, signalIngest, addonDelivery];
  // Admin first: it seeds tokens and publishes what the others hydrate from.
  for (const service of services) await service.start();

  const adminUi = createAdminUiRouter(child("gateway"));
  const app = createHttpApp({
    logger: child("gateway"),
    trustProxy: platform.TRUST_PROXY,
    sdkRequestLogLevel: platform.SDK_REQUEST_LOG_LEVEL,
    metrics: { registry: metrics, token: platform.METRICS_TOKEN },
    errorHandlers: services.flatMap((s) => s.errorHandlers ?? []),
    // The docs and the web UI after the services: no SDK request walks (and leaves) their routers first.
    routers: [
      dispatchByPrefix({ admin: admin.router, "frontend-eval": frontendEval.router, "signal-ingest": signalIngest.router }),
      createDocsRouter(),
      ...(adminUi ? [adminUi] : []),
    ],
    readiness: [
      ...[...stores].map(([service, store]) => ({ name: `store:${service}`, check: () => store.ping() })),
      ...services.flatMap((s) => s.readiness),
    ],
    dependencies: [
      ...[...stores].map(([service, store]) => storeWritesCheck(`store-writes:${service}`, store)),
      ...engineChecks({ bus, cache }).dependencies,
    ],
    healthDetails: frontendEval.health,
  });
  // frontend-eval's SDK hot paths are answered before express, as in its own process.
  const server = await starting.serve(
    withFastRoutes(app, frontendEval.fastRoutes ?? [], {
      logger: child("gateway"),
      metrics,
      sdkRequestLogLevel: platform.SDK_REQUEST_LOG_LEVEL,
    }),
  );

  return {
    url: server.url,
    port: server.port,
    createdAdminSecret: admin.createdAdminSecret,
    initialAdmin: admin.initialAdmin,
    async stop() {
      await server.close();
      for (const service of [...services].reverse()) await service.stop();
      await bus.close();
      await cache.close();
      for (const store of stores.values()) await store.close();
    },
  };
}
