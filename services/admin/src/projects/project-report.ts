import type { Feature, HealthReport, ProjectOverview, ProjectSummary } from "@vexil/contracts";
import type { EnvironmentStore } from "../environments/environment-store.js";
import type { EventStore } from "../events/event-store.js";
import type { FeatureDocument } from "../features/feature-model.js";
import type { Actor } from "../access/actor.js";
import { healthOf, recentProjectEvents, statisticsOf } from "./project-health.js";
import type { ProjectService } from "./project-service.js";

/** What project reports and routes read and do with a project's flags (FeatureService). */
export interface ProjectFlags {
  list(query: { project: string; archived?: boolean }): Promise<FeatureDocument[]>;
  toResponses(docs: FeatureDocument[], options: { userId?: number }): Promise<Feature[]>;
  archive(project: string, names: string[], actor: Actor): Promise<void>;
  revive(project: string, names: string[], actor: Actor): Promise<void>;
  deleteArchived(project: string, names: string[], actor: Actor): Promise<void>;
  setStaleMany(project: string, names: string[], stale: boolean, actor: Actor): Promise<void>;
}

/** GET /api/admin/projects/:projectId, .../overview and .../health-report: a project's health and statistics (with its live flags, or their counts per type), computed from the data. */
export class ProjectReports {
  constructor(
    private readonly deps: {
      projects: Pick<ProjectService, "get" | "environmentEntries" | "members" | "favorites">;
      features: Pick<ProjectFlags, "list" | "toResponses">;
      environments: EnvironmentStore;
      events: Pick<EventStore, "list">;
      clock: () => Date;
    },
  ) {}

  async overview(id: string, userId?: number): Promise<ProjectOverview> {
    const { potentiallyStaleCount: _p, activeCount: _a, staleCount: _s, ...overview } = await this.healthReport(id, userId);
    return overview;
  }

  async healthReport(id: string, userId?: number): Promise<HealthReport> {
    const { summary, live, health } = await this.read(id, userId);
    const { technicalDebt: _t, featureTypeCounts: _c, ...report } = summary;
    return {
      ...report,
      features: await this.deps.features.toResponses(live, { userId }),
      potentiallyStaleCount: health.potentiallyStaleCount,
      activeCount: health.activeCount,
      staleCount: health.staleCount,
    };
  }

  /** GET .../overview: the same figures with the live flags counted per type instead of listed. */
  async summary(id: string, userId?: number): Promise<ProjectSummary> {
    return (await this.read(id, userId)).summary;
  }

  private async read(id: string, userId: number | undefined) {
    const now = this.deps.clock();
    const project = await this.deps.projects.get(id);
    const [all, environments, members, globalEnvironments, events, favorites] = await Promise.all([
      this.deps.features.list({ project: id }),
      this.deps.projects.environmentEntries(id),
      this.deps.projects.members(id),
      this.deps.environments.list(),
      recentProjectEvents((q) => this.deps.events.list(q), id, now),
      userId === undefined ? new Set<string>() : this.deps.projects.favorites(userId),
    ]);
    const live = all.filter((f) => !f.archived);
    const health = healthOf(live, now);
    const production = new Set(globalEnvironments.filter((e) => e.type === "production").map((e) => e._id));
    const typeCounts = new Map<string, number>();
    for (const flag of live) typeCounts.set(flag.type, (typeCounts.get(flag.type) ?? 0) + 1);
    const summary: ProjectSummary = {
      version: 1,
      name: project.name,
      description: project.description,
      defaultStickiness: project.defaultStickiness,
      mode: project.mode,
      featureLimit: project.featureLimit,
      // As Unleash reports a project without a naming pattern: every field present, null.
      featureNaming: project.featureNaming ?? { pattern: null, example: null, description: null },
      members,
      health: health.health,
      technicalDebt: 100 - health.health,
      environments,
      featureTypeCounts: [...typeCounts].map(([type, count]) => ({ type, count })),
      stats: statisticsOf(events, all, production, now),
      createdAt: project.createdAt.toISOString(),
      // A project never changed since its creation was last updated then (Unleash: never null).
      updatedAt: (project.updatedAt ?? project.createdAt).toISOString(),
      favorite: favorites.has(id),
    };
    return { summary, live, health };
  }
}
