import { NameExistsError, NotFoundError, ValidationError } from "@vexil/errors";
import type { StoreSession } from "@vexil/store";
import type { Actor } from "../access/actor.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import { assertUrlFriendly } from "../features/feature-naming.js";
import type { EnvironmentDocument, EnvironmentStore } from "./environment-store.js";

export interface EnvironmentView {
  name: string;
  type: string;
  enabled: boolean;
  protected: boolean;
  sortOrder: number;
}

export interface CreateEnvironment {
  name: string;
  type: string;
  sortOrder?: number;
  enabled?: boolean;
}

export function toEnvironmentView(doc: EnvironmentDocument): EnvironmentView {
  return { name: doc._id, type: doc.type, enabled: doc.enabled, protected: doc.protected, sortOrder: doc.sortOrder };
}

/**
 * Environments, global to the installation (Unleash's `/api/admin/environments`). Projects pick
 * which of them they use; flags are enabled per environment.
 */
export class EnvironmentService {
  constructor(
    private readonly deps: {
      environments: EnvironmentStore;
      /** Ids of the projects that have the environment enabled. */
      projectsWith: (environment: string, session: StoreSession) => Promise<string[]>;
      unitOfWork: UnitOfWork;
      clock: () => Date;
    },
  ) {}

  async list(): Promise<EnvironmentView[]> {
    return (await this.deps.environments.list()).map(toEnvironmentView);
  }

  async get(name: string): Promise<EnvironmentView> {
    const doc = await this.deps.environments.get(name);
    if (!doc) throw new NotFoundError(`Could not find environment ${name}`);
    return toEnvironmentView(doc);
  }

  async exists(name: string): Promise<boolean> {
    return (await this.deps.environments.get(name)) !== null;
  }

  async create(input: CreateEnvironment, actor: Actor): Promise<EnvironmentView> {
    assertUrlFriendly(input.name, "name");
    return this.deps.unitOfWork.run(async (tx) => {
      if (await this.deps.environments.get(input.name, tx.session)) {
        throw new NameExistsError(`An environment named ${input.name} already exists`);
      }
      const all = await this.deps.environments.list(tx.session);
      const doc: EnvironmentDocument = {
        _id: input.name,
        type: input.type,
        enabled: input.enabled ?? true,
        protected: false,
        sortOrder: input.sortOrder ?? Math.max(0, ...all.map((e) => e.sortOrder)) + 1,
        createdAt: this.deps.clock(),
      };
      await this.deps.environments.insert(doc, tx.session);
      const view = toEnvironmentView(doc);
      await tx.record({ type: "environment-created", actor, environment: doc._id, data: view });
      return view;
    });
  }

  async update(name: string, fields: { type?: string; sortOrder?: number }, actor: Actor): Promise<EnvironmentView> {
    return this.change(name, actor, (doc) => {
      if (doc.protected) throw new ValidationError(`Environment ${name} is protected and cannot be changed`);
      return { type: fields.type ?? doc.type, sortOrder: fields.sortOrder ?? doc.sortOrder };
    });
  }

  async setEnabled(name: string, enabled: boolean, actor: Actor): Promise<EnvironmentView> {
    return this.change(name, actor, () => ({ enabled }));
  }

  /** `{ development: 1, production: 2 }`; every name must exist, none is changed otherwise. */
  async sort(order: Record<string, number>, actor: Actor): Promise<void> {
    await this.deps.unitOfWork.run(async (tx) => {
      for (const name of Object.keys(order)) {
        if (!(await this.deps.environments.get(name, tx.session))) throw new NotFoundError(`Could not find environment ${name}`);
      }
      for (const [name, sortOrder] of Object.entries(order)) {
        await this.deps.environments.update(name, { sortOrder }, tx.session);
      }
      await tx.record({ type: "environment-updated", actor, data: { sortOrder: order } });
    });
  }

  /** Refused for a protected environment and while any project has it enabled. */
  async delete(name: string, actor: Actor): Promise<void> {
    await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.deps.environments.get(name, tx.session);
      if (!before) throw new NotFoundError(`Could not find environment ${name}`);
      if (before.protected) throw new ValidationError(`Environment ${name} is protected and cannot be deleted`);
      const projects = await this.deps.projectsWith(name, tx.session);
      if (projects.length > 0) {
        throw new NameExistsError(
          `Environment ${name} is enabled in project(s) ${projects.join(", ")}; remove it from them before deleting it`,
        );
      }
      await this.deps.environments.delete(name, tx.session);
      await tx.record({ type: "environment-deleted", actor, environment: name, preData: toEnvironmentView(before) });
    });
  }

  private async change(
    name: string,
    actor: Actor,
    fields: (doc: EnvironmentDocument) => Partial<Omit<EnvironmentDocument, "_id">>,
  ): Promise<EnvironmentView> {
    return this.deps.unitOfWork.run(async (tx) => {
      const before = await this.deps.environments.get(name, tx.session);
      if (!before) throw new NotFoundError(`Could not find environment ${name}`);
      const after = { ...before, ...fields(before) };
      await this.deps.environments.update(name, after, tx.session);
      const view = toEnvironmentView(after);
      await tx.record({ type: "environment-updated", actor, environment: name, data: view, preData: toEnvironmentView(before) });
      return view;
    });
  }
}
