import type { FeatureNamingPattern, ProjectEnvironment, ProjectMode, StrategyFields } from "@vexil/contracts";
import { NameExistsError, NotFoundError, ValidationError } from "@vexil/errors";
import type { StoreSession } from "@vexil/store";
import type { Actor } from "../access/actor.js";
import type { EnvironmentStore } from "../environments/environment-store.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import type { EnvironmentView } from "../features/feature-response.js";
import type { FavoriteStore } from "../features/feature-store.js";
import { assertUrlFriendly, assertValidFeatureNaming } from "../features/feature-naming.js";
import { projectEnvironmentId, type ProjectDocument, type ProjectEnvironmentDocument, type ProjectStore } from "./project-store.js";

export interface CreateProject {
  id: string;
  name: string;
  description?: string | null;
  mode?: ProjectMode;
  defaultStickiness?: string;
  featureLimit?: number | null;
  featureNaming?: FeatureNamingPattern | null;
  /** Defaults to every enabled environment. */
  environments?: string[];
}

export type UpdateProject = Omit<CreateProject, "id" | "environments">;

/** What projects need to know about the flags they hold, given by the feature slice. */
export interface ProjectFeaturesPort {
  countLive(project: string, session?: StoreSession): Promise<number>;
  /** Hard-deletes the archived flags of a project being deleted, in its transaction. */
  deleteArchived(project: string, session: StoreSession): Promise<void>;
}

/** What the change-request slice knows about a project: its members and protected environments. */
export interface ProjectCollaborationPort {
  members(project: string): Promise<number>;
  changeRequestsEnabled(project: string, environment: string): Promise<boolean>;
}

export type DefaultStrategy = StrategyFields & { name: string };

/** Unleash's default when a project environment has none configured. */
export function fallbackDefaultStrategy(stickiness: string): DefaultStrategy {
  return {
    name: "flexibleRollout",
    title: null,
    disabled: false,
    constraints: [],
    variants: [],
    segments: [],
    parameters: { rollout: "100", stickiness, groupId: "" },
  };
}

export class ProjectService {
  constructor(
    private readonly deps: {
      projects: ProjectStore;
      environments: EnvironmentStore;
      features: ProjectFeaturesPort;
      collaboration: ProjectCollaborationPort;
      favorites: FavoriteStore;
      strategyExists: (name: string) => Promise<boolean>;
      unitOfWork: UnitOfWork;
      clock: () => Date;
    },
  ) {}

  list(): Promise<ProjectDocument[]> {
    return this.deps.projects.list();
  }

  async get(id: string): Promise<ProjectDocument> {
    const project = await this.deps.projects.get(id);
    if (!project) throw new NotFoundError(`Could not find project ${id}`);
    return project;
  }

  /** Ids of the private projects: only their members see them. */
  privateProjects(): Promise<string[]> {
    return this.deps.projects.idsInMode("private");
  }

  /** The project, or null when there is none (a failing store still throws). */
  find(id: string): Promise<ProjectDocument | null> {
    return this.deps.projects.get(id);
  }

  async exists(id: string): Promise<boolean> {
    return (await this.deps.projects.get(id)) !== null;
  }

  members(id: string): Promise<number> {
    return this.deps.collaboration.members(id);
  }

  /** Names of the projects the user marked as favorites. */
  favorites(userId: number): Promise<Set<string>> {
    return this.deps.favorites.favorites(userId);
  }

  async setFavorite(id: string, favorite: boolean, actor: Actor): Promise<void> {
    await this.get(id);
    await this.deps.unitOfWork.run(async (tx) => {
      const changed = favorite
        ? await this.deps.favorites.add(actor.userId, id, this.deps.clock(), tx.session)
        : await this.deps.favorites.remove(actor.userId, id, tx.session);
      if (changed)
        await tx.record({ type: favorite ? "project-favorited" : "project-unfavorited", actor, project: id, data: { project: id } });
    });
  }

  /** The project's environments in display order (global sort order, then name), with their types. */
  async environmentViews(id: string): Promise<EnvironmentView[]> {
    const [linked, all] = await Promise.all([this.deps.projects.environments(id), this.deps.environments.list()]);
    const names = new Set(linked.map((e) => e.environment));
    return all.filter((env) => names.has(env._id)).map((env) => ({ name: env._id, type: env.type, sortOrder: env.sortOrder }));
  }

  async environmentEntries(id: string): Promise<ProjectEnvironment[]> {
    const [views, linked] = await Promise.all([this.environmentViews(id), this.deps.projects.environments(id)]);
    const byName = new Map(linked.map((e) => [e.environment, e]));
    return Promise.all(
      views.map(async (view) => {
        const entry = byName.get(view.name);
        return {
          environment: view.name,
          changeRequestsEnabled: await this.deps.collaboration.changeRequestsEnabled(id, view.name),
          ...(entry?.defaultStrategy ? { defaultStrategy: entry.defaultStrategy as DefaultStrategy } : {}),
        };
      }),
    );
  }

  async projectEnvironment(id: string, environment: string): Promise<ProjectEnvironmentDocument> {
    await this.get(id);
    const entry = (await this.deps.projects.environments(id)).find((e) => e.environment === environment);
    if (!entry) throw new NotFoundError(`Environment ${environment} is not enabled in project ${id}`);
    return entry;
  }

  /** The strategy a flag gets when it is enabled in an environment where it has none. */
  async defaultStrategy(id: string, environment: string): Promise<DefaultStrategy> {
    const project = await this.get(id);
    const entry = await this.projectEnvironment(id, environment);
    const configured = entry.defaultStrategy as DefaultStrategy | null;
    if (!configured) return fallbackDefaultStrategy(project.defaultStickiness);
    return configured;
  }

  async create(input: CreateProject, actor: Actor): Promise<ProjectDocument> {
    assertUrlFriendly(input.id, "id");
    assertValidFeatureNaming(input.featureNaming);
    const environments = input.environments ?? (await this.deps.environments.list()).filter((e) => e.enabled).map((e) => e._id);
    return this.deps.unitOfWork.run(async (tx) => {
      if (await this.deps.projects.get(input.id, tx.session)) throw new NameExistsError(`A project with id ${input.id} already exists`);
      for (const environment of environments) {
        if (!(await this.deps.environments.get(environment, tx.session)))
          throw new NotFoundError(`Could not find environment ${environment}`);
      }
      const doc: ProjectDocument = {
        _id: input.id,
        name: input.name,
        description: input.description ?? null,
        mode: input.mode ?? "open",
        defaultStickiness: input.defaultStickiness ?? "default",
        featureLimit: input.featureLimit ?? null,
        featureNaming: input.featureNaming ? normaliseNaming(input.featureNaming) : null,
        createdAt: this.deps.clock(),
        updatedAt: null,
      };
      await this.deps.projects.insert(doc, tx.session);
      for (const environment of environments) {
        await this.deps.projects.addEnvironment(
          { _id: projectEnvironmentId(doc._id, environment), project: doc._id, environment, defaultStrategy: null },
          tx.session,
        );
      }
      await tx.record({ type: "project-created", actor, project: doc._id, data: { ...doc, environments } });
      return doc;
    });
  }

  async update(id: string, input: UpdateProject, actor: Actor): Promise<ProjectDocument> {
    assertValidFeatureNaming(input.featureNaming);
    return this.deps.unitOfWork.run(async (tx) => {
      const before = await this.deps.projects.get(id, tx.session);
      if (!before) throw new NotFoundError(`Could not find project ${id}`);
      const after: ProjectDocument = {
        ...before,
        name: input.name,
        description: input.description === undefined ? before.description : input.description,
        mode: input.mode ?? before.mode,
        defaultStickiness: input.defaultStickiness ?? before.defaultStickiness,
        featureLimit: input.featureLimit === undefined ? before.featureLimit : input.featureLimit,
        featureNaming:
          input.featureNaming === undefined ? before.featureNaming : input.featureNaming && normaliseNaming(input.featureNaming),
        updatedAt: this.deps.clock(),
      };
      const { _id, ...fields } = after;
      await this.deps.projects.update(id, fields, tx.session);
      await tx.record({ type: "project-updated", actor, project: id, data: after, preData: before });
      return after;
    });
  }

  async delete(id: string, actor: Actor): Promise<void> {
    if (id === "default") throw new ValidationError("The default project cannot be deleted");
    await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.deps.projects.get(id, tx.session);
      if (!before) throw new NotFoundError(`Could not find project ${id}`);
      const live = await this.deps.features.countLive(id, tx.session);
      if (live > 0) {
        throw new NameExistsError(`Project ${id} still holds ${live} feature flag(s); archive them before deleting the project`);
      }
      await this.deps.features.deleteArchived(id, tx.session);
      await this.deps.favorites.removeItem(id, tx.session);
      await this.deps.projects.delete(id, tx.session);
      await tx.record({ type: "project-deleted", actor, project: id, preData: before });
    });
  }

  async addEnvironment(id: string, environment: string, defaultStrategy: DefaultStrategy | undefined, actor: Actor): Promise<void> {
    if (defaultStrategy) await this.assertStrategyDefined(defaultStrategy.name);
    await this.deps.unitOfWork.run(async (tx) => {
      if (!(await this.deps.projects.get(id, tx.session))) throw new NotFoundError(`Could not find project ${id}`);
      if (!(await this.deps.environments.get(environment, tx.session)))
        throw new NotFoundError(`Could not find environment ${environment}`);
      const linked = await this.deps.projects.environments(id, tx.session);
      if (linked.some((e) => e.environment === environment)) {
        throw new NameExistsError(`Environment ${environment} is already enabled in project ${id}`);
      }
      await this.deps.projects.addEnvironment(
        { _id: projectEnvironmentId(id, environment), project: id, environment, defaultStrategy: defaultStrategy ?? null },
        tx.session,
      );
      await tx.record({ type: "project-environment-added", actor, project: id, environment });
    });
  }

  async removeEnvironment(id: string, environment: string, actor: Actor): Promise<void> {
    await this.deps.unitOfWork.run(async (tx) => {
      if (!(await this.deps.projects.get(id, tx.session))) throw new NotFoundError(`Could not find project ${id}`);
      const linked = await this.deps.projects.environments(id, tx.session);
      if (!linked.some((e) => e.environment === environment)) {
        throw new NotFoundError(`Environment ${environment} is not enabled in project ${id}`);
      }
      if (linked.length === 1) throw new ValidationError(`Project ${id} must keep at least one environment`);
      await this.deps.projects.removeEnvironment(id, environment, tx.session);
      await tx.record({ type: "project-environment-removed", actor, project: id, environment });
    });
  }

  async setDefaultStrategy(id: string, environment: string, strategy: DefaultStrategy, actor: Actor): Promise<DefaultStrategy> {
    await this.assertStrategyDefined(strategy.name);
    const stored: DefaultStrategy = {
      name: strategy.name,
      title: strategy.title ?? null,
      disabled: strategy.disabled ?? false,
      constraints: strategy.constraints ?? [],
      variants: strategy.variants ?? [],
      parameters: strategy.parameters ?? {},
      segments: strategy.segments ?? [],
    };
    return this.deps.unitOfWork.run(async (tx) => {
      const entry = (await this.deps.projects.environments(id, tx.session)).find((e) => e.environment === environment);
      if (!(await this.deps.projects.get(id, tx.session))) throw new NotFoundError(`Could not find project ${id}`);
      if (!entry) throw new NotFoundError(`Environment ${environment} is not enabled in project ${id}`);
      await this.deps.projects.updateEnvironment(id, environment, { defaultStrategy: stored }, tx.session);
      await tx.record({ type: "default-strategy-updated", actor, project: id, environment, data: stored, preData: entry.defaultStrategy });
      return stored;
    });
  }

  private async assertStrategyDefined(name: string): Promise<void> {
    if (!(await this.deps.strategyExists(name))) {
      throw new ValidationError(`Strategy ${name} is not defined`, [{ path: "name", message: "Unknown strategy name" }]);
    }
  }
}

function normaliseNaming(naming: FeatureNamingPattern) {
  return { pattern: naming.pattern ?? null, example: naming.example ?? null, description: naming.description ?? null };
}
