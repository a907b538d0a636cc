import type { ActionSet, ActionSetEvent, ActionSetInput } from "@vexil/contracts";
import { NotFoundError, ValidationError } from "@vexil/errors";
import type { Actor } from "../access/actor.js";
import { assertValidConstraints } from "../constraints/constraint-validation.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import type { SignalLimits } from "../signals/signal-limits.js";
import type { ActionDocument, ActionSetDocument, ActionSetEventDocument, ActionSetEventStore, ActionSetStore } from "./action-set-store.js";

export function toActionSet(doc: ActionSetDocument): ActionSet {
  return {
    id: doc._id,
    name: doc.name,
    description: doc.description,
    project: doc.project,
    enabled: doc.enabled,
    actorId: doc.actorId,
    match: doc.match,
    actions: doc.actions.map((a) => ({ ...a, createdAt: a.createdAt.toISOString() })),
    createdAt: doc.createdAt.toISOString(),
    createdByUserId: doc.createdByUserId,
  };
}

function toActionSetEvent(doc: ActionSetEventDocument): ActionSetEvent {
  return {
    id: doc._id,
    actionSetId: doc.actionSetId,
    signalId: doc.signalId,
    createdAt: doc.createdAt.toISOString(),
    state: doc.state,
    signal: doc.signal,
    actionSet: doc.actionSet,
  };
}

export interface ActionServiceDeps {
  actionSets: ActionSetStore;
  actionSetEvents: ActionSetEventStore;
  unitOfWork: UnitOfWork;
  clock: () => Date;
  limits: Pick<SignalLimits, "actionSetsPerProject" | "actionsPerSet" | "filtersPerSet" | "filterValues">;
  /** Throws NotFoundError for an unknown project. */
  assertProject: (project: string) => Promise<unknown>;
  isServiceAccount: (id: number) => Promise<boolean>;
  isSignalEndpoint: (id: number) => Promise<boolean>;
}

/** Project-scoped action sets: which signals they react to, as whom, and what they do. */
export class ActionService {
  constructor(private readonly deps: ActionServiceDeps) {}

  async list(project: string): Promise<ActionSet[]> {
    await this.deps.assertProject(project);
    return (await this.deps.actionSets.list(project)).map(toActionSet);
  }

  async create(project: string, input: ActionSetInput, actor: Actor): Promise<ActionSet> {
    await this.validate(project, input);
    const { actionSets, unitOfWork, limits } = this.deps;
    const now = this.deps.clock();
    const doc: ActionSetDocument = {
      _id: await actionSets.nextId(),
      project,
      ...(await this.fields(input, now, actor, [])),
      createdAt: now,
      createdByUserId: actor.userId,
    };
    await unitOfWork.run(async (tx) => {
      if ((await actionSets.count(project, tx.session)) >= limits.actionSetsPerProject) {
        throw new ValidationError(`A project can have at most ${limits.actionSetsPerProject} action sets; delete one first`);
      }
      await actionSets.insert(doc, tx.session);
      await tx.record({ type: "actions-created", actor, project, data: toActionSet(doc) });
    });
    return toActionSet(doc);
  }

  async update(project: string, id: number, input: ActionSetInput, actor: Actor): Promise<ActionSet> {
    await this.validate(project, input);
    const before = await this.mustGet(project, id);
    const after: ActionSetDocument = {
      ...before,
      ...(await this.fields(input, this.deps.clock(), actor, before.actions)),
    };
    await this.deps.unitOfWork.run(async (tx) => {
      await this.deps.actionSets.replace(after, tx.session);
      await tx.record({ type: "actions-updated", actor, project, data: toActionSet(after), preData: toActionSet(before) });
    });
    return toActionSet(after);
  }

  async setEnabled(project: string, id: number, enabled: boolean, actor: Actor): Promise<void> {
    const before = await this.mustGet(project, id);
    const after = { ...before, enabled };
    await this.deps.unitOfWork.run(async (tx) => {
      await this.deps.actionSets.replace(after, tx.session);
      await tx.record({ type: "actions-updated", actor, project, data: toActionSet(after), preData: toActionSet(before) });
    });
  }

  async delete(project: string, id: number, actor: Actor): Promise<void> {
    const before = await this.mustGet(project, id);
    await this.deps.unitOfWork.run(async (tx) => {
      await this.deps.actionSets.delete(id, tx.session);
      await tx.record({ type: "actions-deleted", actor, project, preData: toActionSet(before) });
    });
  }

  async events(project: string, id: number, page: { limit: number; offset: number }): Promise<ActionSetEvent[]> {
    await this.mustGet(project, id);
    return (await this.deps.actionSetEvents.list(id, page)).map(toActionSetEvent);
  }

  async usesActor(actorId: number): Promise<boolean> {
    return this.deps.actionSets.usesActor(actorId);
  }

  /** Actions keep their ids (and creation time) across an update when they stay at their position. */
  private async fields(input: ActionSetInput, now: Date, actor: Actor, previous: ActionDocument[]) {
    const actions: ActionDocument[] = [];
    for (const [i, action] of input.actions.entries()) {
      const kept = previous[i];
      actions.push({
        id: kept?.id ?? (await this.deps.actionSets.nextActionId()),
        action: action.action,
        sortOrder: action.sortOrder,
        executionParams: action.executionParams,
        createdAt: kept?.createdAt ?? now,
        createdByUserId: kept?.createdByUserId ?? actor.userId,
      });
    }
    return {
      name: input.name,
      description: input.description ?? null,
      enabled: input.enabled,
      actorId: input.actorId,
      match: input.match,
      actions,
    };
  }

  private async validate(project: string, input: ActionSetInput): Promise<void> {
    await this.deps.assertProject(project);
    const { limits } = this.deps;
    const filters = Object.entries(input.match.payload);
    if (input.actions.length > limits.actionsPerSet) {
      throw new ValidationError(`An action set can have at most ${limits.actionsPerSet} actions`, [
        { path: "body.actions", message: `At most ${limits.actionsPerSet} actions` },
      ]);
    }
    if (filters.length > limits.filtersPerSet) {
      throw new ValidationError(`An action set can have at most ${limits.filtersPerSet} filters`, [
        { path: "body.match.payload", message: `At most ${limits.filtersPerSet} filters` },
      ]);
    }
    for (const [path, filter] of filters) {
      if ((filter.values?.length ?? 0) > limits.filterValues) {
        throw new ValidationError(`A filter can have at most ${limits.filterValues} values`, [
          { path: `body.match.payload.${path}.values`, message: `At most ${limits.filterValues} values` },
        ]);
      }
    }
    assertValidConstraints(
      filters.map(([path, filter]) => ({ ...filter, contextName: path })),
      { path: "body.match.payload" },
    );
    input.actions.forEach((action, i) => {
      if (action.executionParams.project !== project) {
        throw new ValidationError(`Actions can only change flags in project ${project}`, [
          { path: `body.actions.${i}.executionParams.project`, message: `Must be ${project}` },
        ]);
      }
    });
    if (!(await this.deps.isServiceAccount(input.actorId))) {
      throw new ValidationError(`Actor ${input.actorId} is not a service account`, [
        { path: "body.actorId", message: "Must be the id of a service account" },
      ]);
    }
    if (!(await this.deps.isSignalEndpoint(input.match.sourceId))) {
      throw new ValidationError(`Signal endpoint ${input.match.sourceId} does not exist`, [
        { path: "body.match.sourceId", message: "Must be the id of a signal endpoint" },
      ]);
    }
  }

  private async mustGet(project: string, id: number): Promise<ActionSetDocument> {
    await this.deps.assertProject(project);
    const doc = await this.deps.actionSets.get(project, id);
    if (!doc) throw new NotFoundError(`Could not find action set ${id} in project ${project}`);
    return doc;
  }
}
