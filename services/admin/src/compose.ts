import type { Logger } from "@vexil/logger";
import { Registry } from "@vexil/metrics";
import { openSharedTokenSet, type Engines } from "@vexil/runtime";
import { AccessService } from "./access/access-service.js";
import { createGovernanceSlice } from "./compose/governance.js";
import { rootRoleRule } from "./roles/root-roles.js";
import { addonBusClient } from "./addons/addon-bus.js";
import { AddonService } from "./addons/addon-service.js";
import { createAddonStore } from "./addons/addon-store.js";
import { createApiTokenStore } from "./api-tokens/api-token-store.js";
import { toGrant } from "./api-tokens/token-grants.js";
import { ClientApplicationService } from "./client-applications/client-application-service.js";
import { createClientApplicationStore } from "./client-applications/client-application-store.js";
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
import { FeatureStrategyService } from "./features/feature-strategy-service.js";
import { createFavoriteStore, createFeatureStore } from "./features/feature-store.js";
import { ProjectService } from "./projects/project-service.js";
import { changeActions, type ActionPorts } from "./change-requests/change-request-actions.js";
import { ChangeRequestConfig } from "./change-requests/change-request-config.js";
import { ChangeRequestReview } from "./change-requests/change-request-review.js";
import { ChangeRequestService } from "./change-requests/change-request-service.js";
import { ChangeRequestViewer } from "./change-requests/change-request-view.js";
import { createChangeRequestStore } from "./change-requests/change-request-store.js";
import { ProjectMembers } from "./change-requests/project-members.js";
import { SnapshotPublisher } from "./snapshots/snapshot-publisher.js";
import { snapshotSources } from "./snapshots/snapshot-sources.js";
import { ProjectReports } from "./projects/project-report.js";
import { createSignalsSlice } from "./compose/signals.js";
import type { SignalLimitSettings } from "./signals/signal-limits.js";
import type { LoginRateLimitSettings } from "./auth/login-rate-limit.js";
import type { EventRetentionSettings } from "./events/event-retention.js";
import { ContextService } from "./context/context-service.js";
import { createContextFieldStore } from "./context/context-field-store.js";
import type { FeatureReader } from "./features/strategy-usage.js";
import { DependencyService } from "./dependencies/dependency-service.js";
import { EnvironmentTypes, LifecycleService } from "./lifecycle/lifecycle-service.js";
import { segmentLimits, type SegmentLimitSettings } from "./segments/segment-limits.js";
import { SegmentService, type ProposedStrategy } from "./segments/segment-service.js";
import { createSegmentStore } from "./segments/segment-store.js";
import { TagService } from "./tags/tag-service.js";
import { createTagStore } from "./tags/tag-store.js";
import { registerAdminMetrics } from "./operations/admin-metrics.js";
import { createUsageMetricsSlice, type UsageMetricsSettings } from "./usage-metrics/usage-slice.js";
import { ExportService } from "./export-import/export-service.js";
import { ImportService } from "./export-import/import-service.js";

export type AdminSettings = Pick<AdminConfig, "INIT_ADMIN_API_TOKENS" | "INIT_CLIENT_API_TOKENS" | "INIT_FRONTEND_API_TOKENS"> &
  Partial<SignalLimitSettings> &
  Partial<SegmentLimitSettings> &
  Partial<Pick<AdminConfig, "ADDONS_ALLOW_PRIVATE_URLS">> &
  Partial<Pick<AdminConfig, "INIT_ADMIN_USERNAME" | "INIT_ADMIN_PASSWORD" | "PUBLIC_URL" | "SECURE_COOKIES">> &
  Partial<LoginRateLimitSettings> &
  Partial<EventRetentionSettings> &
  Partial<UsageMetricsSettings>;

/** Builds the admin service's stores and domain services top-down from the engines it is given. */
export async function createAdminDeps({
  engines,
  settings,
  logger,
  clock = () => new Date(),
  metrics = new Registry(),
}: {
  engines: Engines;
  settings: AdminSettings;
  logger: Logger;
  clock?: () => Date;
  /** The process's Prometheus registry; admin adds its gauges to it. */
  metrics?: Registry;
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
    favorites: await createFavoriteStore(store, "feature_favorites"),
    projectFavorites: await createFavoriteStore(store, "project_favorites"),
    contextFields: createContextFieldStore(store),
    segments: await createSegmentStore(store),
    tags: await createTagStore(store),
    clientApplications: await createClientApplicationStore(store),
  };
  // Admin owns the tokens: its own set reads them from its store, never from the cache.
  const sharedTokens = await openSharedTokenSet(cache, bus, {
    source: { loadAll: async () => (await stores.apiTokens.list()).map(toGrant) },
    logger: logger.child({ module: "tokens" }),
  });
  // Flag reads for the segment, tag, context and strategy slices (archived flags included);
  // FeatureService is built below, from what these slices offer it.
  const flagReader: FeatureReader = { listAll: () => featureService.list(), find: (name) => featureService.find(name) };
  const strategies = new StrategyService({ strategies: stores.strategies, features: flagReader, unitOfWork, clock });
  const contextService = new ContextService({ contextFields: stores.contextFields, features: flagReader, unitOfWork, clock });
  const validateConstraints = createConstraintValidator(contextService);
  const tagService = new TagService({ tags: stores.tags, features: flagReader, unitOfWork, clock });
  const strategyExists = (name: string) => strategies.exists(name);
  const environmentService = new EnvironmentService({
    environments: stores.environments,
    projectsWith: (environment, session) => stores.projects.projectsWith(environment, session),
    unitOfWork,
    clock,
  });
  const projectService = new ProjectService({
    projects: stores.projects,
    environments: stores.environments,
    features: {
      countLive: (project, session) => stores.features.count({ project, archived: false }, session),
      deleteArchived: async (project, session) => {
        for (const flag of await stores.features.list({ project, archived: true }, session))
          await stores.features.delete(flag._id, session);
      },
    },
    collaboration: {
      members: (project): Promise<number> => projectMembers.count(project),
      changeRequestsEnabled: (project, environment): Promise<boolean> => changeRequestConfig.isEnabled(project, environment),
    },
    favorites: stores.projectFavorites,
    strategyExists,
    unitOfWork,
    clock,
  });
  const featureService = new FeatureService({
    features: stores.features,
    favorites: stores.favorites,
    projects: projectService,
    tags: { forFeature: (name) => tagService.tagsOf(name) },
    unitOfWork,
    clock,
  });
  const featureStrategies = new FeatureStrategyService({
    flags: featureService,
    projects: projectService,
    strategyExists,
    segments: { assertUsableInStrategy: (ids, project) => segmentService.assertUsableInStrategy(ids, project) },
    validateConstraints,
    unitOfWork,
    clock,
  });
  const limits = segmentLimits(settings);
  const segmentService = new SegmentService({
    segments: stores.segments,
    features: flagReader,
    proposedStrategies: (): Promise<ProposedStrategy[]> => changeRequestService.pendingStrategies(),
    projects: projectService,
    validateConstraints,
    unitOfWork,
    nextId: () => store.nextSequence("segments"),
    clock,
    limits,
  });
  const environmentTypes = new EnvironmentTypes(environmentService);
  const lifecycleService = new LifecycleService({ features: featureService, environmentTypes, unitOfWork, clock });
  featureService.addChangeHook(lifecycleService.onFeatureChange);
  const dependencyService = new DependencyService({ features: featureService, projects: projectService, unitOfWork });
  const flagModelLog = logger.child({ module: "flag-model" });
  const logListenerError = (err: unknown) => flagModelLog.error({ err }, "reacting to a committed change failed");
  unitOfWork.onCommitted(environmentTypes.listener(logListenerError));
  featureService.addRemovalStep({
    archived: (tx, names, actor) => dependencyService.removeDependenciesOfArchived(tx, names, actor),
    deleted: (tx, names) => tagService.removeTagsOfDeleted(tx, names),
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
    features: featureStrategies,
    assertProject: (project) => projectService.get(project),
    settings,
    clock,
    logger: logger.child({ module: "signals" }),
  });
  const changeRequestStore = await createChangeRequestStore(store);
  const changeRequestPorts: ActionPorts = {
    features: featureService,
    featureStrategies,
    segments: {
      find: (id) => segmentService.find(id),
      update: (id, input, actor) => segmentService.update(id, input, actor),
      delete: (id, actor) => segmentService.delete(id, actor),
    },
    dependencies: dependencyService,
    validateConstraints,
  };
  const changeRequestActions = changeActions(changeRequestPorts);
  const changeRequestViewer = new ChangeRequestViewer({ ...changeRequestPorts, projects: projectService });
  const changeRequestConfig = new ChangeRequestConfig({ store: changeRequestStore, projects: projectService, unitOfWork });
  const changeRequestService = new ChangeRequestService({
    store: changeRequestStore,
    config: changeRequestConfig,
    ports: changeRequestPorts,
    actions: changeRequestActions,
    viewer: changeRequestViewer,
    projects: projectService,
    unitOfWork,
    clock,
  });
  const changeRequestReview = new ChangeRequestReview({
    store: changeRequestStore,
    config: changeRequestConfig,
    actions: changeRequestActions,
    viewer: changeRequestViewer,
    unitOfWork,
    clock,
  });
  featureService.addChangeGuard(changeRequestConfig.guard);
  const projectMembers = await ProjectMembers.create({
    engine: store,
    projects: projectService,
    userExists: (id) => governance.users.exists(id),
    unitOfWork,
    clock,
  });
  const snapshotPublisher = new SnapshotPublisher({
    sources: snapshotSources({
      features: featureService,
      segments: segmentService,
      environments: environmentService,
      projects: projectService,
      events,
    }),
    cache,
    bus,
    logger: logger.child({ module: "snapshots" }),
  });
  unitOfWork.onCommitted((recorded) => snapshotPublisher.notify(recorded));
  const usageMetrics = await createUsageMetricsSlice({
    engine: store,
    bus,
    clock,
    logger: logger.child({ module: "usage-metrics" }),
    retentionHours: settings.CLIENT_METRICS_RETENTION_HOURS,
  });
  const exporter = new ExportService({
    features: featureService,
    environments: environmentService,
    projects: projectService,
    segments: segmentService,
    context: contextService,
    tags: tagService,
    unitOfWork,
  });
  const importer = new ImportService({
    features: {
      find: (name, session) => featureService.find(name, session),
      count: (project) => stores.features.count({ project, archived: false }),
      children: (name, session) => featureService.children(name, session),
      create: (project, input, actor) => featureService.create(project, input, actor),
      change: (tx, actor, name, mutate) => featureService.change(tx, actor, name, mutate),
      assertValidStrategy: (input, project) => featureStrategies.assertValidStrategy(input, project),
    },
    projects: {
      find: (id) => projectService.find(id),
      environmentViews: (id) => projectService.environmentViews(id),
    },
    strategies,
    context: contextService,
    segments: segmentService,
    tags: tagService,
    changeRequests: {
      isEnabled: (project, environment) => changeRequestConfig.isEnabled(project, environment),
      addChanges: (project, environment, changes, actor) => changeRequestService.addChanges(project, environment, changes, actor),
    },
    unitOfWork,
    clock,
  });
  registerAdminMetrics(metrics, {
    outboxBacklog: () => events.outboxBacklog(),
    publishedRevisions: () => snapshotPublisher.publishedRevisions(),
  });
  return {
    engines,
    metrics,
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
    clientApplications: new ClientApplicationService({ applications: stores.clientApplications, strategies, unitOfWork, clock }),
    environmentService,
    projectService,
    featureService,
    featureStrategies,
    contextService,
    segmentService,
    segmentLimits: limits,
    tagService,
    environmentTypes,
    lifecycleService,
    dependencyService,
    changeRequestStore,
    changeRequestConfig,
    changeRequestService,
    changeRequestReview,
    projectMembers,
    snapshotPublisher,
    usageMetrics,
    exporter,
    importer,
    projectReports,
    signals,
    governance,
  };
}
export type AdminDeps = Awaited<ReturnType<typeof createAdminDeps>>;
