import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import { mountContract } from "@vexil/http";
import type { AccessService } from "../access/access-service.js";
import { permissions } from "../access/permissions.js";
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
  mountContract(router, adminContract.environments, {
    list: async ({ req }) => {
      access.assert(req, permissions.read);
      return { status: 200, body: { version: 1 as const, environments: await environments.list() } };
    },
    get: async ({ params, req }) => {
      access.assert(req, permissions.read);
      return { status: 200, body: await environments.get(params.name) };
    },
    listForProject: async ({ params, req }) => {
      access.assert(req, permissions.read, { project: params.projectId });
      const names = new Set((await projects.environmentViews(params.projectId)).map((e) => e.name));
      const all = await environments.list();
      return { status: 200, body: { version: 1 as const, environments: all.filter((e) => names.has(e.name)) } };
    },
    create: async ({ body, req }) => {
      const actor = access.assert(req, permissions.createEnvironment);
      return { status: 201, body: await environments.create(body, actor) };
    },
    update: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.updateEnvironment, { environment: params.name });
      return { status: 200, body: await environments.update(params.name, body, actor) };
    },
    sortOrder: async ({ body, req }) => {
      const actor = access.assert(req, permissions.updateEnvironment);
      await environments.sort(body, actor);
      return { status: 200, body: undefined };
    },
    delete: async ({ params, req }) => {
      const actor = access.assert(req, permissions.deleteEnvironment, { environment: params.name });
      await environments.delete(params.name, actor);
      return { status: 200, body: undefined };
    },
    enable: async ({ params, req }) => {
      const actor = access.assert(req, permissions.updateEnvironment, { environment: params.name });
      await environments.setEnabled(params.name, true, actor);
      return { status: 204, body: undefined };
    },
    disable: async ({ params, req }) => {
      const actor = access.assert(req, permissions.updateEnvironment, { environment: params.name });
      await environments.setEnabled(params.name, false, actor);
      return { status: 204, body: undefined };
    },
  });
  return router;
}
