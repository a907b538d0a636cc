import express, { type Router } from "express";
import { adminContract, type Project } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
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

  mountGuardedContract(
    router,
    projectRoutesContract,
    { access },
    {
      list: async ({ actor }) => {
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
      create: async ({ body, actor }) => {
        return { status: 201, body: await toProject(await projects.create(body, actor)) };
      },
      getOverview: async ({ params, actor }) => {
        return { status: 200, body: await reports.overview(params.projectId, actor.userId) };
      },
      update: async ({ params, body, actor }) => {
        return { status: 200, body: await toProject(await projects.update(params.projectId, body, actor)) };
      },
      delete: async ({ params, actor }) => {
        await projects.delete(params.projectId, actor);
        return { status: 200, body: undefined };
      },
      getSummary: async ({ params, actor }) => {
        return { status: 200, body: await reports.summary(params.projectId, actor.userId) };
      },
      getHealthReport: async ({ params, actor }) => {
        return { status: 200, body: await reports.healthReport(params.projectId, actor.userId) };
      },
      addEnvironment: async ({ params, body, actor }) => {
        await projects.addEnvironment(params.projectId, body.environment, body.defaultStrategy as DefaultStrategy | undefined, actor);
        return { status: 200, body: undefined };
      },
      removeEnvironment: async ({ params, actor }) => {
        await projects.removeEnvironment(params.projectId, params.environment, actor);
        return { status: 200, body: undefined };
      },
      getDefaultStrategy: async ({ params }) => {
        return { status: 200, body: await projects.defaultStrategy(params.projectId, params.environment) };
      },
      setDefaultStrategy: async ({ params, body, actor }) => {
        return { status: 200, body: await projects.setDefaultStrategy(params.projectId, params.environment, body, actor) };
      },
      putDefaultStrategy: async ({ params, body, actor }) => {
        return { status: 200, body: await projects.setDefaultStrategy(params.projectId, params.environment, body, actor) };
      },
      archiveFeatures: async ({ params, body, actor }) => {
        await features.archive(params.projectId, body.features, actor);
        return { status: 202, body: undefined };
      },
      deleteFeatures: async ({ params, body, actor }) => {
        await features.deleteArchived(params.projectId, body.features, actor);
        return { status: 200, body: undefined };
      },
      reviveFeatures: async ({ params, body, actor }) => {
        await features.revive(params.projectId, body.features, actor);
        return { status: 200, body: undefined };
      },
      addFavorite: async ({ params, actor }) => {
        await projects.setFavorite(params.projectId, true, actor);
        return { status: 200, body: undefined };
      },
      removeFavorite: async ({ params, actor }) => {
        await projects.setFavorite(params.projectId, false, actor);
        return { status: 200, body: undefined };
      },
      markStale: async ({ params, body, actor }) => {
        await features.setStaleMany(params.projectId, body.features, body.stale, actor);
        return { status: 202, body: undefined };
      },
    },
  );
  return router;
}
