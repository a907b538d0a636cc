import type { Logger } from "@vexil/logger";
import type { StoreEngine } from "@vexil/store";
import { changeRequestsEnabled } from "../change-requests/change-request-config.js";
import { pendingStrategies } from "../change-requests/change-request-service.js";
import { createConstraintValidator } from "../constraints/constraint-validation.js";
import { ContextService } from "../context/context-service.js";
import { DependencyService } from "../feature-dependencies/dependency-service.js";
import { EnvironmentService } from "../environments/environment-service.js";
import type { EventStore } from "../events/event-store.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import { FeatureService } from "../features/feature-service.js";
import { FlagEnvironmentService } from "../features/flag-environment-service.js";
import { FlagLinkService } from "../flag-links/flag-link-service.js";
import { flagReader } from "../features/strategy-usage.js";
import { EnvironmentTypes, LifecycleService } from "../lifecycle/lifecycle-service.js";
import { ProjectReports } from "../projects/project-report.js";
import { ProjectService } from "../projects/project-service.js";
import { segmentLimits, type SegmentLimitSettings } from "../segments/segment-limits.js";
import { SegmentService } from "../segments/segment-service.js";
import { StrategyService } from "../strategies/strategy-service.js";
import { TagService } from "../tags/tag-service.js";
import type { AdminStores } from "./stores.js";

/**
 * The flag model: strategy definitions, context fields, tags, flag links, environments, projects, flags,
 * segments, lifecycle and feature dependencies, in dependency order. Where two of them read each other,
 * one side reads the other's store instead of its service: the tag, context, strategy and segment
 * slices read flags through `flagReader`; projects read member counts and change-request settings
 * from their stores; segments read proposed strategies from the change-request store.
 */
export function createFlagModel({
  engine,
  stores,
  events,
  unitOfWork,
  settings,
  clock,
  logger,
}: {
  engine: StoreEngine;
  stores: AdminStores;
  events: EventStore;
  unitOfWork: UnitOfWork;
  settings: Partial<SegmentLimitSettings>;
  clock: () => Date;
  logger: Logger;
}) {
  const flags = flagReader(stores.features, unitOfWork);
  const strategies = new StrategyService({ strategies: stores.strategies, features: flags, unitOfWork, clock });
  const strategyExists = (name: string) => strategies.exists(name);
  const contextService = new ContextService({ contextFields: stores.contextFields, features: flags, unitOfWork, clock });
  const validateConstraints = createConstraintValidator(contextService);
  const tagService = new TagService({ tags: stores.tags, features: flags, unitOfWork, clock });
  const flagLinkService = new FlagLinkService({ links: stores.flagLinks, features: flags, unitOfWork, clock });
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
      members: (project) => stores.projectMembers.count(project),
      changeRequestsEnabled: (project, environment) => changeRequestsEnabled(stores.changeRequests, project, environment),
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
    tags: { forFeatures: (names) => tagService.tagsOfMany(names), flagsTagged: (tags) => tagService.flagsTagged(tags) },
    links: { forFeatures: (names) => flagLinkService.linksOf(names) },
    unitOfWork,
    clock,
  });
  const limits = segmentLimits(settings);
  const segmentService = new SegmentService({
    segments: stores.segments,
    features: flags,
    proposedStrategies: () => pendingStrategies(stores.changeRequests),
    projects: projectService,
    validateConstraints,
    unitOfWork,
    nextId: () => engine.nextSequence("segments"),
    clock,
    limits,
  });
  const flagEnvironments = new FlagEnvironmentService({
    flags: featureService,
    projects: projectService,
    strategyExists,
    segments: segmentService,
    validateConstraints,
    unitOfWork,
    clock,
  });
  const environmentTypes = new EnvironmentTypes(environmentService);
  const lifecycleService = new LifecycleService({ features: featureService, environmentTypes, unitOfWork, clock });
  featureService.addChangeHook(lifecycleService.onFeatureChange);
  const dependencyService = new DependencyService({ features: featureService, projects: projectService, unitOfWork });
  featureService.addRemovalStep({
    archived: (tx, names, actor) => dependencyService.removeDependenciesOfArchived(tx, names, actor),
    deleted: async (tx, names) => {
      await tagService.removeTagsOfDeleted(tx, names);
      await flagLinkService.removeLinksOfDeleted(tx, names);
    },
  });
  const flagModelLog = logger.child({ module: "flag-model" });
  // Kept for the life of the process, like the hooks above: the types follow every environment change.
  unitOfWork.onCommitted(environmentTypes.listener((err: unknown) => flagModelLog.error({ err }, "reacting to a committed change failed")));
  const projectReports = new ProjectReports({
    projects: projectService,
    features: featureService,
    environments: stores.environments,
    events,
    clock,
  });
  return {
    strategies,
    contextService,
    validateConstraints,
    tagService,
    flagLinkService,
    environmentService,
    projectService,
    featureService,
    segmentService,
    segmentLimits: limits,
    flagEnvironments,
    environmentTypes,
    lifecycleService,
    dependencyService,
    projectReports,
  };
}
export type FlagModel = ReturnType<typeof createFlagModel>;
