import type { StoreEngine } from "@vexil/store";
import type { EventStore } from "../events/event-store.js";
import type { FeatureDocument, SegmentDocument } from "../features/feature-model.js";
import type { SnapshotSources } from "./snapshot-publisher.js";

/** The flags snapshots are built from (FeatureService implements it). */
export interface SnapshotFlags {
  /** Every live (not archived) flag. */
  listAll(): Promise<FeatureDocument[]>;
  find(name: string): Promise<FeatureDocument | null>;
}

/** The environments that exist (EnvironmentService implements it). */
export interface SnapshotEnvironments {
  list(): Promise<{ name: string }[]>;
}

/** The projects and the environments each one serves (ProjectService implements it). */
export interface SnapshotProjects {
  list(): Promise<{ _id: string }[]>;
  environmentViews(id: string): Promise<{ name: string }[]>;
}

/** The publisher's reads, answered by the services that own flags, segments and environments. */
export function snapshotSources(deps: {
  features: SnapshotFlags;
  segments: { listAll(): Promise<SegmentDocument[]> };
  environments: SnapshotEnvironments;
  projects: SnapshotProjects;
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
