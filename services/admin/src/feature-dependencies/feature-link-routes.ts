import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import { mountContract } from "@vexil/http";
import type { AccessService } from "../access/access-service.js";
import { permissions } from "../access/permissions.js";
import type { LifecycleService } from "../lifecycle/lifecycle-service.js";
import type { DependencyService } from "./dependency-service.js";

export function featureLinkRoutes({
  dependencies,
  lifecycle,
  access,
}: {
  dependencies: DependencyService;
  lifecycle: LifecycleService;
  access: AccessService;
}): Router {
  const router = express.Router();
  mountContract(router, adminContract.featureLinks, {
    addDependency: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.updateFeatureDependency, { project: params.projectId });
      await dependencies.add(params.projectId, params.featureName, body, actor);
      return { status: 200, body: undefined };
    },
    removeDependency: async ({ params, req }) => {
      const actor = access.assert(req, permissions.updateFeatureDependency, { project: params.projectId });
      await dependencies.remove(params.projectId, params.featureName, params.parent, actor);
      return { status: 200, body: undefined };
    },
    removeDependencies: async ({ params, req }) => {
      const actor = access.assert(req, permissions.updateFeatureDependency, { project: params.projectId });
      await dependencies.removeAll(params.projectId, params.featureName, actor);
      return { status: 200, body: undefined };
    },
    projectUsesDependencies: async ({ params, req }) => {
      access.assert(req, permissions.read, { project: params.projectId });
      return { status: 200, body: await dependencies.projectUsesDependencies(params.projectId) };
    },
    lifecycle: async ({ params, req }) => {
      access.assert(req, permissions.read, { project: params.projectId });
      return { status: 200, body: await lifecycle.get(params.projectId, params.featureName) };
    },
    completeLifecycle: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.updateFeature, { project: params.projectId });
      await lifecycle.complete(params.projectId, params.featureName, body, actor);
      return { status: 200, body: undefined };
    },
    uncompleteLifecycle: async ({ params, req }) => {
      const actor = access.assert(req, permissions.updateFeature, { project: params.projectId });
      await lifecycle.uncomplete(params.projectId, params.featureName, actor);
      return { status: 200, body: undefined };
    },
  });
  // POST .../archive/validate is declared with the project routes; the dependency slice answers it.
  mountContract(
    router,
    { validateArchive: adminContract.projects.validateArchive },
    {
      validateArchive: async ({ params, body, req }) => {
        access.assert(req, permissions.deleteFeature, { project: params.projectId });
        return { status: 200, body: await dependencies.validateArchive(params.projectId, body.features) };
      },
    },
  );
  return router;
}
