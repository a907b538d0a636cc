import { NotFoundError } from "@vexil/errors";
import type { Actor } from "../access/actor.js";
import { startFeatureSlice } from "../features/feature-slice.fixture.js";
import { changeActions, type ActionPorts } from "./change-request-actions.js";
import { ChangeRequestConfig } from "./change-request-config.js";
import { ChangeRequestReview } from "./change-request-review.js";
import { ChangeRequestService } from "./change-request-service.js";
import { createChangeRequestStore } from "./change-request-store.js";
import { ChangeRequestViewer } from "./change-request-view.js";

export const author: Actor = { name: "author", userId: 11 };
export const reviewer: Actor = { name: "reviewer", userId: 12 };

/**
 * The change-request slice over the feature slice's embedded store, project `default` with
 * development and production. This system has no segments and no flag dependencies: proposals of
 * those are refused as they would be for segments and parents that do not exist.
 */
export async function startChangeRequestSlice() {
  const flags = await startFeatureSlice({
    default: { featureNaming: null, featureLimit: null, environments: ["development", "production"] },
  });
  const store = await createChangeRequestStore(flags.engine);
  const ports: ActionPorts = {
    features: flags.features,
    featureStrategies: flags.strategies,
    segments: {
      find: async () => null,
      update: async (id) => Promise.reject(new NotFoundError(`Could not find segment ${id}`)),
      delete: async (id) => Promise.reject(new NotFoundError(`Could not find segment ${id}`)),
    },
    dependencies: {
      problem: async (_project, _child, parent) => `feature ${parent} does not exist`,
      add: async (_project, _child, body) => Promise.reject(new NotFoundError(`Could not find feature ${body.feature}`)),
      removeAll: async () => undefined,
    },
    validateConstraints: async () => undefined,
  };
  const projects = {
    get: async (id: string) => ({ _id: id, ...(await flags.projects.get(id)) }),
    environmentViews: flags.projects.environmentViews,
    defaultStrategy: flags.projects.defaultStrategy,
  };
  const actions = changeActions(ports);
  const viewer = new ChangeRequestViewer({ ...ports, projects, actions });
  const config = new ChangeRequestConfig({ store, projects, unitOfWork: flags.unitOfWork });
  flags.features.addChangeGuard(config.guard);
  const service = new ChangeRequestService({
    store,
    config,
    ports,
    actions,
    viewer,
    projects,
    unitOfWork: flags.unitOfWork,
    clock: flags.clock,
  });
  const review = new ChangeRequestReview({ store, config, actions, viewer, unitOfWork: flags.unitOfWork, clock: flags.clock });
  return { ...flags, store, ports, actions, config, service, review };
}
