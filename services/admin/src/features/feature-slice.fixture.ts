import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { NotFoundError } from "@vexil/errors";
import { createEmbeddedEngine } from "@vexil/store";
import type { Actor } from "../access/actor.js";
import { EventStore } from "../events/event-store.js";
import { UnitOfWork } from "../events/unit-of-work.js";
import type { FeatureDocument, FeatureStrategyDocument } from "./feature-model.js";
import { FeatureService } from "./feature-service.js";
import { FlagEnvironmentService } from "./flag-environment-service.js";
import { createFavoriteStore, createFeatureStore } from "./feature-store.js";
import type { FlagProjectSettings, FlagProjects } from "./flag-projects.js";

export const alice: Actor = { name: "alice", userId: 7, email: null };

/**
 * A flag as the store holds it, for tests that hand flags to a store or a reader directly: a live
 * release flag in `default`, in no environment yet, with `fields` laid over it.
 */
export function featureDocument(name: string, fields: Partial<FeatureDocument> = {}): FeatureDocument {
  return {
    _id: name,
    project: "default",
    type: "release",
    description: null,
    stale: false,
    impressionData: false,
    archived: false,
    archivedAt: null,
    createdAt: new Date(0),
    createdBy: { id: 1, name: "admin", imageUrl: "" },
    environments: {},
    dependencies: [],
    lifecycle: [],
    collaborators: [],
    version: 1,
    ...fields,
  };
}

/** A strategy as a flag stores it: the default strategy, unconstrained, with `fields` laid over it. */
export function strategyDocument(fields: Partial<FeatureStrategyDocument> = {}): FeatureStrategyDocument {
  return {
    id: "00000000-0000-4000-8000-000000000001",
    name: "default",
    title: null,
    disabled: false,
    sortOrder: 0,
    constraints: [],
    variants: [],
    parameters: {},
    segments: [],
    createdAt: new Date(0),
    ...fields,
  };
}

/** A project as the feature slice sees it: settings plus its enabled environments. */
export interface TestProject extends FlagProjectSettings {
  environments: string[];
}

/**
 * The feature slice on an embedded store in a temporary directory, with projects given as plain data
 * (the slice reads them through its FlagProjects port). For the unit tests beside the services.
 */
export async function startFeatureSlice(projects: Record<string, TestProject>) {
  const dir = await mkdtemp(path.join(tmpdir(), "vexil-features-"));
  const engine = await createEmbeddedEngine({ dir });
  let now = new Date("2030-01-01T00:00:00.000Z");
  const clock = () => now;
  const events = await EventStore.create(engine, clock);
  const unitOfWork = new UnitOfWork(engine, events);
  const projectOf = (id: string): TestProject => {
    const project = projects[id];
    if (!project) throw new NotFoundError(`Could not find project ${id}`);
    return project;
  };
  const flagProjects: FlagProjects = {
    get: async (id) => projectOf(id),
    exists: async (id) => id in projects,
    environmentViews: async (id) => projectOf(id).environments.map((name, sortOrder) => ({ name, type: "development", sortOrder })),
    defaultStrategy: async (id) => {
      projectOf(id);
      return { name: "flexibleRollout", constraints: [], parameters: { rollout: "100", stickiness: "default", groupId: "" } };
    },
  };
  const features = new FeatureService({
    features: await createFeatureStore(engine),
    favorites: await createFavoriteStore(engine, "feature_favorites"),
    projects: flagProjects,
    unitOfWork,
    clock,
  });
  const definedStrategies = new Set(["default", "flexibleRollout", "userWithId"]);
  const strategies = new FlagEnvironmentService({
    flags: features,
    projects: flagProjects,
    strategyExists: async (name) => definedStrategies.has(name),
    segments: { assertUsableInStrategy: async () => undefined },
    validateConstraints: async () => undefined,
    unitOfWork,
    clock,
  });
  return {
    engine,
    unitOfWork,
    clock,
    projects: flagProjects,
    /** The strategy names defined in this system (delete one to make a later write refuse it). */
    definedStrategies,
    features,
    strategies,
    /** The event types recorded for one flag, oldest first. */
    async eventTypes(featureName: string): Promise<string[]> {
      const { events: recorded } = await events.list({ featureName });
      return recorded.map((e) => e.type).reverse();
    },
    advanceClock(ms: number) {
      now = new Date(now.getTime() + ms);
    },
    async stop() {
      await engine.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
