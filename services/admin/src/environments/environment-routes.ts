import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import type { EnvironmentService } from "./environment-service.js";

/** The environments a project has enabled (ProjectService implements it; throws NotFoundError for an unknown project). */
export interface ProjectEnvironments {
  environmentViews(project: string): Promise<Array<{ name: string }>>;
}

export function environmentRoutes({
  environments,
  projects,
  access,
}: {
  environments: EnvironmentService;
  projects: ProjectEnvironments;
  access: AccessService;
}): Router {
  const router = express.Router();
  mountGuardedContract(
    router,
    adminContract.environments,
    { access },
    {
      list: async () => {
        return { status: 200, body: { version: 1 as const, environments: await environments.list() } };
      },
      get: async ({ params }) => {
        return { status: 200, body: await environments.get(params.name) };
      },
      listForProject: async ({ params }) => {
        const names = new Set((await projects.environmentViews(params.projectId)).map((e) => e.name));
        const all = await environments.list();
        return { status: 200, body: { version: 1 as const, environments: all.filter((e) => names.has(e.name)) } };
      },
      create: async ({ body, actor }) => {
        return { status: 201, body: await environments.create(body, actor) };
      },
      update: async ({ params, body, actor }) => {
        return { status: 200, body: await environments.update(params.name, body, actor) };
      },
      sortOrder: async ({ body, actor }) => {
        await environments.sort(body, actor);
        return { status: 200, body: undefined };
      },
      delete: async ({ params, actor }) => {
        await environments.delete(params.name, actor);
        return { status: 200, body: undefined };
      },
      enable: async ({ params, actor }) => {
        await environments.setEnabled(params.name, true, actor);
        return { status: 204, body: undefined };
      },
      disable: async ({ params, actor }) => {
        await environments.setEnabled(params.name, false, actor);
        return { status: 204, body: undefined };
      },
    },
  );
  return router;
}
