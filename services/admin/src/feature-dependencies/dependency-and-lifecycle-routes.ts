import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import type { LifecycleService } from "../lifecycle/lifecycle-service.js";
import type { DependencyService } from "./dependency-service.js";

export function dependencyAndLifecycleRoutes({
  dependencies,
  lifecycle,
  access,
}: {
  dependencies: DependencyService;
  lifecycle: LifecycleService;
  access: AccessService;
}): Router {
  const router = express.Router();
  mountGuardedContract(
    router,
    adminContract.dependenciesAndLifecycle,
    { access },
    {
      addDependency: async ({ params, body, actor }) => {
        await dependencies.add(params.projectId, params.featureName, body, actor);
        return { status: 200, body: undefined };
      },
      removeDependency: async ({ params, actor }) => {
        await dependencies.remove(params.projectId, params.featureName, params.parent, actor);
        return { status: 200, body: undefined };
      },
      removeDependencies: async ({ params, actor }) => {
        await dependencies.removeAll(params.projectId, params.featureName, actor);
        return { status: 200, body: undefined };
      },
      projectUsesDependencies: async ({ params }) => {
        return { status: 200, body: await dependencies.projectUsesDependencies(params.projectId) };
      },
      lifecycle: async ({ params }) => {
        return { status: 200, body: await lifecycle.get(params.projectId, params.featureName) };
      },
      completeLifecycle: async ({ params, body, actor }) => {
        await lifecycle.complete(params.projectId, params.featureName, body, actor);
        return { status: 200, body: undefined };
      },
      uncompleteLifecycle: async ({ params, actor }) => {
        await lifecycle.uncomplete(params.projectId, params.featureName, actor);
        return { status: 200, body: undefined };
      },
    },
  );
  // POST .../archive/validate is declared with the project routes; the dependency slice answers it.
  mountGuardedContract(
    router,
    { validateArchive: adminContract.projects.validateArchive },
    { access },
    {
      validateArchive: async ({ params, body }) => {
        return { status: 200, body: await dependencies.validateArchive(params.projectId, body.features) };
      },
    },
  );
  return router;
}
