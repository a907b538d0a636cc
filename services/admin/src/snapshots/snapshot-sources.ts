import type { StoreEngine } from "@vexil/store";
import type { EnvironmentService } from "../environments/environment-service.js";
import type { EventStore } from "../events/event-store.js";
import type { SegmentDocument } from "../features/feature-model.js";
import type { FeatureService } from "../features/feature-service.js";
import type { ProjectService } from "../projects/project-service.js";
import type { SnapshotSources } from "./snapshot-publisher.js";

/** The publisher's reads, answered by the services that own flags, segments and environments. */
export function snapshotSources(deps: {
  features: Pick<FeatureService, "listAll" | "find">;
  segments: { listAll(): Promise<SegmentDocument[]> };
  environments: Pick<EnvironmentService, "list">;
  projects: Pick<ProjectService, "list" | "environmentViews">;
  events: Pick<EventStore, "latestId" | "between">;
}): SnapshotSources {
  return {
    listFeatures: () => deps.features.listAll(),
    findFeature: (name) => deps.features.find(name),
    listSegments: () => deps.segments.listAll(),
    listEnvironments: async () => (await deps.environments.list()).map((environment) => environment.name),
    async listProjectEnvironments() {
      const projects = await deps.projects.list();
      const views = await Promise.all(projects.map((project) => deps.projects.environmentViews(project._id)));
      return projects.flatMap((project, i) => views[i]!.map((view) => ({ project: project._id, environment: view.name })));
    },
    latestEventId: () => deps.events.latestId(),
    eventsBetween: (after, upTo) => deps.events.between(after, upTo),
  };
}

/**
 * Every segment, read from the collection the segment slice writes. A port, as the feature
 * slice's segment lookup is, until the segment service is wired in to answer instead.
 */
export function storedSegments(engine: StoreEngine): { listAll(): Promise<SegmentDocument[]> } {
  const segments = engine.collection<SegmentDocument>("segments");
  return { listAll: () => segments.find({}, { sort: { _id: 1 } }) };
}
