import express, { type Router } from "express";
import { adminContract, type Project } from "@vexil/contracts";
import { mountContract } from "@vexil/http";
import type { AccessService } from "../access/access-service.js";
import { permissions } from "../access/permissions.js";
import { healthOf } from "./project-health.js";
import type { ProjectFlags, ProjectReports } from "./project-report.js";
import type { DefaultStrategy, ProjectService } from "./project-service.js";
import type { ProjectDocument } from "./project-store.js";

// POST /api/admin/projects/:projectId/archive/validate belongs to the dependencies slice, which mounts it.
const { validateArchive: _dependenciesSlice, ...projectRoutesContract } = adminContract.projects;

export function projectRoutes({
  projects,
  features,
  reports,
  access,
  clock,
}: {
  projects: ProjectService;
  features: Pick<ProjectFlags, "list" | "archive" | "revive" | "deleteArchived" | "setStaleMany">;
  reports: ProjectReports;
  access: AccessService;
  clock: () => Date;
}): Router {
  const router = express.Router();

  async function toProject(doc: ProjectDocument): Promise<Project> {
    return {
      id: doc._id,
      name: doc.name,
      description: doc.description,
      mode: doc.mode,
      defaultStickiness: doc.defaultStickiness,
      featureLimit: doc.featureLimit,
      featureNaming: doc.featureNaming,
      environments: (await projects.environmentViews(doc._id)).map((e) => e.name),
      createdAt: doc.createdAt.toISOString(),
      updatedAt: doc.updatedAt?.toISOString() ?? null,
    };
  }

  mountContract(router, projectRoutesContract, {
    list: async ({ req }) => {
      const actor = access.assert(req, permissions.read);
      const now = clock();
      const favorites = await projects.favorites(actor.userId);
      const list = await Promise.all(
        (await projects.list()).map(async (doc) => {
          const live = await features.list({ project: doc._id, archived: false });
          return {
            id: doc._id,
            name: doc.name,
            description: doc.description,
            mode: doc.mode,
            health: healthOf(live, now).health,
            featureCount: live.length,
            memberCount: await projects.members(doc._id),
            createdAt: doc.createdAt.toISOString(),
            updatedAt: doc.updatedAt?.toISOString() ?? null,
            favorite: favorites.has(doc._id),
          };
        }),
      );
      return { status: 200, body: { version: 1 as const, projects: list } };
    },
    create: async ({ body, req }) => {
      const actor = access.assert(req, permissions.createProject);
      return { status: 201, body: await toProject(await projects.create(body, actor)) };
    },
    getOverview: async ({ params, req }) => {
      const actor = access.assert(req, permissions.read, { project: params.projectId });
      return { status: 200, body: await reports.overview(params.projectId, actor.userId) };
    },
    update: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.updateProject, { project: params.projectId });
      return { status: 200, body: await toProject(await projects.update(params.projectId, body, actor)) };
    },
    delete: async ({ params, req }) => {
      const actor = access.assert(req, permissions.deleteProject, { project: params.projectId });
      await projects.delete(params.projectId, actor);
      return { status: 200, body: undefined };
    },
    getSummary: async ({ params, req }) => {
      const actor = access.assert(req, permissions.read, { project: params.projectId });
      return { status: 200, body: await reports.summary(params.projectId, actor.userId) };
    },
    getHealthReport: async ({ params, req }) => {
      const actor = access.assert(req, permissions.read, { project: params.projectId });
      return { status: 200, body: await reports.healthReport(params.projectId, actor.userId) };
    },
    addEnvironment: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.updateProject, { project: params.projectId });
      await projects.addEnvironment(params.projectId, body.environment, body.defaultStrategy as DefaultStrategy | undefined, actor);
      return { status: 200, body: undefined };
    },
    removeEnvironment: async ({ params, req }) => {
      const actor = access.assert(req, permissions.updateProject, { project: params.projectId });
      await projects.removeEnvironment(params.projectId, params.environment, actor);
      return { status: 200, body: undefined };
    },
    getDefaultStrategy: async ({ params, req }) => {
      access.assert(req, permissions.read, { project: params.projectId, environment: params.environment });
      return { status: 200, body: await projects.defaultStrategy(params.projectId, params.environment) };
    },
    setDefaultStrategy: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.updateProject, { project: params.projectId, environment: params.environment });
      return { status: 200, body: await projects.setDefaultStrategy(params.projectId, params.environment, body, actor) };
    },
    putDefaultStrategy: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.updateProject, { project: params.projectId, environment: params.environment });
      return { status: 200, body: await projects.setDefaultStrategy(params.projectId, params.environment, body, actor) };
    },
    archiveFeatures: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.deleteFeature, { project: params.projectId });
      await features.archive(params.projectId, body.features, actor);
      return { status: 202, body: undefined };
    },
    deleteFeatures: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.deleteFeature, { project: params.projectId });
      await features.deleteArchived(params.projectId, body.features, actor);
      return { status: 200, body: undefined };
    },
    reviveFeatures: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.updateFeature, { project: params.projectId });
      await features.revive(params.projectId, body.features, actor);
      return { status: 200, body: undefined };
    },
    addFavorite: async ({ params, req }) => {
      const actor = access.assert(req, permissions.read, { project: params.projectId });
      await projects.setFavorite(params.projectId, true, actor);
      return { status: 200, body: undefined };
    },
    removeFavorite: async ({ params, req }) => {
      const actor = access.assert(req, permissions.read, { project: params.projectId });
      await projects.setFavorite(params.projectId, false, actor);
      return { status: 200, body: undefined };
    },
    markStale: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.updateFeature, { project: params.projectId });
      await features.setStaleMany(params.projectId, body.features, body.stale, actor);
      return { status: 202, body: undefined };
    },
  });
  return router;
}
