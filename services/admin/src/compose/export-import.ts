import type { Logger } from "@vexil/logger";
import type { StoreEngine } from "@vexil/store";
import type { UnitOfWork } from "../events/unit-of-work.js";
import { ExportService } from "../export-import/export-service.js";
import { createImportProgressStore } from "../export-import/import-progress.js";
import { ImportService } from "../export-import/import-service.js";
import type { ChangeRequests } from "./change-requests.js";
import type { FlagModel } from "./flags.js";
import type { AdminStores } from "./stores.js";

/** Export and import of flags with their strategies, segments, context fields, tags and dependencies. */
export function createExportImport({
  engine,
  stores,
  flags,
  changeRequests,
  unitOfWork,
  clock,
  logger,
}: {
  engine: StoreEngine;
  stores: AdminStores;
  flags: FlagModel;
  changeRequests: ChangeRequests;
  unitOfWork: UnitOfWork;
  clock: () => Date;
  logger: Logger;
}) {
  const { featureService, flagEnvironments, projectService } = flags;
  const exporter = new ExportService({
    features: featureService,
    environments: flags.environmentService,
    projects: projectService,
    segments: flags.segmentService,
    context: flags.contextService,
    tags: flags.tagService,
    unitOfWork,
  });
  const importer = new ImportService({
    features: {
      find: (name, session) => featureService.find(name, session),
      count: (project) => stores.features.count({ project, archived: false }),
      children: (name, session) => featureService.children(name, session),
      create: (project, input, actor) => featureService.create(project, input, actor),
      change: (tx, actor, name, mutate) => featureService.change(tx, actor, name, mutate),
      assertValidStrategy: (input, project) => flagEnvironments.assertValidStrategy(input, project),
    },
    projects: {
      find: (id) => projectService.find(id),
      environmentViews: (id) => projectService.environmentViews(id),
    },
    strategies: flags.strategies,
    context: flags.contextService,
    segments: flags.segmentService,
    tags: flags.tagService,
    changeRequests: {
      isEnabled: (project, environment) => changeRequests.config.isEnabled(project, environment),
      addChanges: (project, environment, changes, actor) => changeRequests.changeRequests.addChanges(project, environment, changes, actor),
    },
    progress: createImportProgressStore(engine),
    unitOfWork,
    clock,
    logger,
  });
  return { exporter, importer };
}
