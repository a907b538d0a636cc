import type { Logger } from "@vexil/logger";
import type { Registry } from "@vexil/metrics";
import type { Engines } from "@vexil/runtime";
import { addonBusClient } from "../addons/addon-bus.js";
import { AddonService } from "../addons/addon-service.js";
import { ClientApplicationService } from "../client-applications/client-application-service.js";
import type { EventStore } from "../events/event-store.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import { registerAdminMetrics } from "../operations/admin-metrics.js";
import { SnapshotPublisher } from "../snapshots/snapshot-publisher.js";
import { snapshotSources } from "../snapshots/snapshot-sources.js";
import { UsageService } from "../usage-metrics/usage-service.js";
import { createUsageStore } from "../usage-metrics/usage-store.js";
import type { FlagModel } from "./flags.js";
import type { AdminStores } from "./stores.js";

/**
 * What admin sends to and takes from the other services: flag snapshots for frontend-eval,
 * addon configurations for addon-delivery, usage counts and client applications from SDK metrics.
 */
export async function createServiceExchange({
  engines,
  stores,
  flags,
  events,
  unitOfWork,
  settings,
  metrics,
  clock,
  logger,
}: {
  engines: Engines;
  stores: AdminStores;
  flags: FlagModel;
  events: EventStore;
  unitOfWork: UnitOfWork;
  settings: { ADDONS_ALLOW_PRIVATE_URLS?: boolean };
  metrics: Registry;
  clock: () => Date;
  logger: Logger;
}) {
  const snapshotPublisher = new SnapshotPublisher({
    sources: snapshotSources({
      features: flags.featureService,
      segments: flags.segmentService,
      environments: flags.environmentService,
      projects: flags.projectService,
      events,
    }),
    cache: engines.cache,
    bus: engines.bus,
    logger: logger.child({ module: "snapshots" }),
  });
  // Kept for the life of the process: every committed change may change a snapshot.
  unitOfWork.onCommitted((recorded) => snapshotPublisher.notify(recorded));
  const usageStore = await createUsageStore(engines.store);
  const addons = new AddonService({
    addons: stores.addons,
    unitOfWork,
    clock,
    allowPrivateUrls: settings.ADDONS_ALLOW_PRIVATE_URLS ?? false,
    ...addonBusClient(engines.bus),
  });
  const clientApplications = new ClientApplicationService({
    applications: stores.clientApplications,
    strategies: flags.strategies,
    unitOfWork,
    clock,
  });
  registerAdminMetrics(metrics, {
    outboxBacklog: () => events.outboxBacklog(),
    publishedRevisions: () => snapshotPublisher.publishedRevisions(),
  });
  return { snapshotPublisher, usageStore, usage: new UsageService({ usage: usageStore, clock }), addons, clientApplications };
}
