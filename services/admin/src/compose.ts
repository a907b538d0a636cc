import type { Logger } from "@vexil/logger";
import { openSharedTokenSet, type Engines } from "@vexil/runtime";
import { AccessService } from "./access/access-service.js";
import { createGovernanceSlice } from "./access/governance-slice.js";
import { rootRoleRule } from "./roles/root-roles.js";
import { addonBusClient } from "./addons/addon-bus.js";
import { AddonService } from "./addons/addon-service.js";
import { createAddonStore } from "./addons/addon-store.js";
import { createApiTokenStore } from "./api-tokens/api-token-store.js";
import type { AdminConfig } from "./config.js";
import { createEnvironmentStore } from "./environments/environment-store.js";
import { EventStore } from "./events/event-store.js";
import { UnitOfWork } from "./events/unit-of-work.js";
import { createProjectStore } from "./projects/project-store.js";
import { createStrategyStore } from "./strategies/strategy-store.js";
import { StrategyService } from "./strategies/strategy-service.js";
import { createConstraintValidator } from "./constraints/constraint-validation.js";
import { EnvironmentService } from "./environments/environment-service.js";
import { FeatureService } from "./features/feature-service.js";
import { createFavoriteStore, createFeatureStore } from "./features/feature-store.js";
import { createSegmentLookup } from "./features/segment-lookup.js";
import { ProjectService } from "./projects/project-service.js";
import { createSignalsSlice } from "./signals/signals-slice.js";
import type { SignalLimitSettings } from "./signals/signal-limits.js";
import { ProjectReports } from "./projects/project-report.js";
import { SnapshotPublisher } from "./snapshots/snapshot-publisher.js";
import { snapshotSources, storedSegments } from "./snapshots/snapshot-sources.js";

export type AdminSettings = Pick<AdminConfig, "INIT_ADMIN_API_TOKENS" | "INIT_CLIENT_API_TOKENS" | "INIT_FRONTEND_API_TOKENS"> &
  Partial<SignalLimitSettings> &
  Partial<Pick<AdminConfig, "ADDONS_ALLOW_PRIVATE_URLS">> &
  Partial<Pick<AdminConfig, "INIT_ADMIN_USERNAME" | "INIT_ADMIN_PASSWORD" | "PUBLIC_URL" | "SECURE_COOKIES">>;

/** Builds the admin service's stores and domain services top-down from the engines it is given. */
export async function createAdminDeps({
  engines,
  settings,
  logger,
  clock = () => new Date(),
}: {
  engines: Engines;
  settings: AdminSettings;
  logger: Logger;
  clock?: () => Date;
}) {
  const { store, bus, cache } = engines;
  const events = await EventStore.create(store, clock);
  const unitOfWork = new UnitOfWork(store, events);
  const stores = {
    apiTokens: await createApiTokenStore(store),
    environments: createEnvironmentStore(store),
    projects: await createProjectStore(store),
    strategies: createStrategyStore(store),
    features: await createFeatureStore(store),
    favorites: await createFavoriteStore(store),
  };
  const sharedTokens = await openSharedTokenSet(cache, bus);
  const strategies = new StrategyService({ strategies: stores.strategies });
  const strategyExists = (name: string) => strategies.exists(name);
  const environmentService = new EnvironmentService({ environments: stores.environments, unitOfWork, clock });
  const projectService = new ProjectService({
    projects: stores.projects,
    environments: stores.environments,
    features: {
      countLive: (project, session) => stores.features.count({ project, archived: false }, session),
      deleteArchived: async (project, session) => {
        for (const flag of await stores.features.list({ project, archived: true }, session)) await stores.features.delete(flag._id, session);
      },
    },
    strategyExists,
    unitOfWork,
    clock,
  });
  const featureService = new FeatureService({
    features: stores.features,
    favorites: stores.favorites,
    projects: projectService,
    strategyExists,
    segments: createSegmentLookup(store),
    // Legal values of context fields join in once the context-field slice offers them.
    validateConstraints: createConstraintValidator({ legalValues: async () => new Map() }),
    unitOfWork,
    clock,
  });
  const projectReports = new ProjectReports({
    projects: projectService,
    features: featureService,
    environments: stores.environments,
    events,
    clock,
  });
  const access = new AccessService([rootRoleRule]);
  const governance = await createGovernanceSlice({
    engines,
    apiTokenStore: stores.apiTokens,
    environments: stores.environments,
    projects: stores.projects,
    events,
    unitOfWork,
    access,
    localTokens: sharedTokens.tokens,
    settings,
    clock,
    logger: logger.child({ module: "governance" }),
  });
  const signals = await createSignalsSlice({
    engines,
    unitOfWork,
    access,
    features: featureService,
    assertProject: (project) => projectService.get(project),
    settings,
    clock,
    logger: logger.child({ module: "signals" }),
  });
  const snapshotPublisher = new SnapshotPublisher({
    sources: snapshotSources({
      features: featureService,
      segments: storedSegments(store),
      environments: environmentService,
      projects: projectService,
      events,
    }),
    cache,
    bus,
    logger: logger.child({ module: "snapshots" }),
  });
  unitOfWork.onCommitted((recorded) => snapshotPublisher.notify(recorded));
  return {
    engines,
    settings,
    logger,
    clock,
    events,
    unitOfWork,
    stores,
    sharedTokens,
    access,
    addons: new AddonService({
      addons: createAddonStore(store),
      unitOfWork,
      clock,
      allowPrivateUrls: settings.ADDONS_ALLOW_PRIVATE_URLS ?? false,
      ...addonBusClient(bus),
    }),
    strategies,
    environmentService,
    projectService,
    featureService,
    projectReports,
    snapshotPublisher,
    signals,
    governance,
  };
}
export type AdminDeps = Awaited<ReturnType<typeof createAdminDeps>>;
