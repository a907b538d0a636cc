/**
 * ChangeRequestService: per project environment configuration, proposing changes (endpoint 10),
 * the review moves and applying. Applying runs every change through the same FeatureService,
 * SegmentService and DependencyService methods a direct change uses, inside ONE unit of work:
 * their own units of work join it, so every change and its domain events commit together or not
 * at all. Direct changes to an environment that requires change requests are refused by `guard`,
 * registered as a FeatureService change guard; the apply path is let through.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type {
  ChangeRequest,
  ChangeRequestChange,
  ChangeRequestConfigInput,
  ChangeRequestEnvironmentConfig,
  ChangeRequestState,
  ChangeRequestStateInput,
  Constraint,
  FeatureVariant,
  StrategyFields,
} from "@vexil/contracts";
import { NotFoundError, ValidationError, VexilError } from "@vexil/errors";
import type { Actor } from "../access/access-service.js";
import type { ConstraintValidator } from "../constraints/constraint-validation.js";
import type { Transaction, UnitOfWork } from "../events/unit-of-work.js";
import { environmentOf, type FeatureDocument, type FeatureStrategyDocument, type SegmentDocument } from "../features/feature-model.js";
import { strategyParameters } from "../features/feature-strategy-service.js";
import { spreadVariantWeights } from "../features/variant-weights.js";
import type { ChangeRequestDocument, Person, StoredChange } from "./change-request-model.js";
import {
  afterContentChange,
  assertEditable,
  assertNotFinal,
  baseOf,
  canonicalJson,
  ChangeRequestForbidden,
  combineChanges,
  conflictOf,
  decide,
  featureConflictOf,
  type Move,
} from "./change-request-rules.js";
import type { ChangeRequestEventType } from "./change-request-events.js";
import type { ProposedStrategy } from "../segments/segment-service.js";
import type { ChangeRequestStore } from "./change-request-store.js";
import { toChangeRequestResponse, type ViewContext } from "./change-request-view.js";

/** The flag reads and lifecycle changes change requests make (FeatureService). */
export interface FeatureChanges {
  find(name: string): Promise<FeatureDocument | null>;
  getInProject(project: string, name: string): Promise<FeatureDocument>;
  archive(project: string, names: string[], actor: Actor): Promise<void>;
}

/** What change requests propose and apply in a flag's environment (FeatureStrategyService). */
export interface FeatureStrategyChanges {
  assertValidStrategy(input: StrategyFields & { name: string }, project: string): Promise<void>;
  setEnvironmentEnabled(
    project: string,
    name: string,
    environment: string,
    enabled: boolean,
    actor: Actor,
    options?: { shouldActivateDisabledStrategies?: boolean },
  ): Promise<unknown>;
  addStrategy(project: string, name: string, environment: string, input: StrategyFields & { name: string }, actor: Actor): Promise<unknown>;
  updateStrategy(
    project: string,
    name: string,
    environment: string,
    id: string,
    input: StrategyFields & { name: string },
    actor: Actor,
  ): Promise<unknown>;
  deleteStrategy(project: string, name: string, environment: string, id: string, actor: Actor): Promise<void>;
  setStrategySortOrder(
    project: string,
    name: string,
    environment: string,
    order: { id: string; sortOrder: number }[],
    actor: Actor,
  ): Promise<void>;
  setVariants(project: string, name: string, environments: string[], variants: FeatureVariant[], actor: Actor): Promise<unknown>;
}

/** The segment operations (SegmentService). */
export interface SegmentChanges {
  find(id: number): Promise<SegmentDocument | null>;
  update(
    id: number,
    input: { name: string; description?: string | null; project?: string | null; constraints: Constraint[] },
    actor: Actor,
  ): Promise<void>;
  delete(id: number, actor: Actor): Promise<void>;
}

/** The dependency operations (DependencyService). */
export interface DependencyChanges {
  /** Why the child cannot depend on the parent, or undefined. */
  problem(project: string, child: string, parent: string): Promise<string | undefined>;
  add(project: string, child: string, body: { feature: string; enabled: boolean; variants: string[] }, actor: Actor): Promise<void>;
  removeAll(project: string, child: string, actor: Actor): Promise<void>;
}

export interface ProjectEnvironments {
  get(project: string): Promise<{ _id: string }>;
  environmentViews(project: string): Promise<{ name: string; type: string }[]>;
  defaultStrategy(project: string, environment: string): Promise<StrategyFields & { name: string }>;
}

/** Requests whose changes may still be applied. */
const openStates: ChangeRequestState[] = ["Draft", "In review", "Approved", "Scheduled"];

/** Unleash's default number of approvals. */
export const defaultRequiredApprovals = 1;

/** Applied in this order so that, e.g., a proposed strategy exists before the flag is enabled. */
const applyOrder: Record<ChangeRequestChange["action"], number> = {
  updateSegment: 0,
  addStrategy: 1,
  updateStrategy: 1,
  deleteStrategy: 1,
  reorderStrategy: 2,
  patchVariant: 2,
  addDependency: 3,
  deleteDependency: 3,
  updateEnabled: 4,
  archiveFeature: 5,
  deleteSegment: 6,
};

const personOf = (actor: Actor): Person => ({ id: actor.userId, username: actor.name });
const actorOf = (person: Person): Actor => ({ userId: person.id, name: person.username });

export class ChangeRequestService {
  /** Set while a change request applies: its changes pass the environment guard. */
  private readonly applying = new AsyncLocalStorage<number>();
  private readonly scheduledListeners: (() => void)[] = [];

  constructor(
    private readonly deps: {
      store: ChangeRequestStore;
      features: FeatureChanges;
      featureStrategies: FeatureStrategyChanges;
      segments: SegmentChanges;
      dependencies: DependencyChanges;
      projects: ProjectEnvironments;
      validateConstraints: ConstraintValidator;
      unitOfWork: UnitOfWork;
      clock: () => Date;
    },
  ) {}

  /** Called when a request is (re)scheduled, so the scheduler can re-arm its timer. */
  onScheduled(listener: () => void): void {
    this.scheduledListeners.push(listener);
  }

  // ---- configuration ----------------------------------------------------------------------------

  async getConfig(project: string): Promise<ChangeRequestEnvironmentConfig[]> {
    await this.deps.projects.get(project);
    const [views, settings] = await Promise.all([this.deps.projects.environmentViews(project), this.deps.store.settings(project)]);
    const byEnvironment = new Map(settings.map((s) => [s.environment, s]));
    return views.map((view) => ({
      environment: view.name,
      type: view.type,
      changeRequestEnabled: byEnvironment.get(view.name)?.enabled ?? false,
      requiredApprovals: byEnvironment.get(view.name)?.requiredApprovals ?? defaultRequiredApprovals,
    }));
  }

  async putConfig(project: string, environment: string, input: ChangeRequestConfigInput, actor: Actor): Promise<void> {
    await this.assertProjectEnvironment(project, environment);
    await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.deps.store.setting(project, environment, tx.session);
      const after = {
        _id: `${project}:${environment}`,
        project,
        environment,
        enabled: input.changeRequestsEnabled,
        requiredApprovals: input.requiredApprovals ?? before?.requiredApprovals ?? defaultRequiredApprovals,
      };
      await this.deps.store.putSetting(after, tx.session);
      await tx.record({
        type: "change-request-configuration-updated",
        actor,
        project,
        environment,
        data: { changeRequestsEnabled: after.enabled, requiredApprovals: after.requiredApprovals },
        preData: before ? { changeRequestsEnabled: before.enabled, requiredApprovals: before.requiredApprovals } : null,
      });
    });
  }

  async isEnabled(project: string, environment: string): Promise<boolean> {
    return (await this.deps.store.setting(project, environment))?.enabled ?? false;
  }

  /**
   * FeatureService change guard: a direct change to an environment that requires change requests
   * (its on/off, strategies or variants, or archiving a flag enabled there) is refused, whoever
   * makes it (people, and signal actions, which flip flags through the same FeatureService path).
   * Dependencies and segments belong to no environment, so direct changes to them pass (as in
   * Unleash); they can still be proposed in a change request.
   */
  readonly guard = async (before: FeatureDocument, after: FeatureDocument): Promise<void> => {
    if (this.applying.getStore() !== undefined) return;
    const touched = new Set<string>();
    for (const environment of new Set([...Object.keys(before.environments), ...Object.keys(after.environments)])) {
      const was = environmentOf(before, environment);
      const is = environmentOf(after, environment);
      const content = (env: typeof was) =>
        canonicalJson({ enabled: env?.enabled ?? false, strategies: env?.strategies ?? [], variants: env?.variants ?? [] });
      if (content(was) !== content(is)) touched.add(environment);
      if (!before.archived && after.archived && was?.enabled) touched.add(environment);
    }
    for (const environment of touched) {
      if (await this.isEnabled(after.project, environment)) {
        throw new ChangeRequestForbidden(
          "SKIP_CHANGE_REQUEST",
          `Change requests are enabled for environment ${environment} in project ${after.project}: propose this change in a change request ` +
            `(POST /api/admin/projects/${after.project}/environments/${environment}/change-requests) instead of changing the flag directly`,
          environment,
        );
      }
    }
  };

  // ---- proposing ----------------------------------------------------------------------------------

  /** Endpoint 10: the changes join the caller's draft for the project and environment, or start one. */
  async addChanges(project: string, environment: string, changes: ChangeRequestChange[], actor: Actor): Promise<ChangeRequest> {
    await this.assertProjectEnvironment(project, environment);
    const setting = await this.deps.store.setting(project, environment);
    if (!setting?.enabled) {
      throw new ValidationError(`Change requests are not enabled for environment ${environment} in project ${project}`);
    }
    const now = this.deps.clock();
    const proposed: StoredChange[] = [];
    for (const [i, change] of changes.entries()) {
      const { feature, segment } = await this.validateChange(project, environment, change, `body.${i}`);
      proposed.push({
        id: 0,
        action: change.action,
        feature: "feature" in change ? change.feature : null,
        payload: "payload" in change ? change.payload : {},
        createdBy: personOf(actor),
        createdAt: now,
        base: baseOf({ action: change.action, payload: "payload" in change ? change.payload : {} }, feature, segment, environment),
      });
    }
    for (const change of proposed) change.id = await this.deps.store.nextChangeId();
    const saved = await this.deps.unitOfWork.run(async (tx) => {
      const [draft] = await this.deps.store.list({ project, environment, state: "Draft", createdBy: actor.userId }, tx.session);
      if (draft) {
        const next = { ...draft, changes: proposed.reduce(combineChanges, draft.changes), updatedAt: now };
        await this.deps.store.replace(next, tx.session);
        await tx.record({
          type: "change-added",
          actor,
          project,
          environment,
          data: { changeRequestId: draft._id, changes: proposed.map((c) => c.id) },
        });
        return next;
      }
      const id = await this.deps.store.nextId();
      const created: ChangeRequestDocument = {
        _id: id,
        project,
        environment,
        title: `Change request #${id}`,
        state: "Draft",
        minApprovals: setting.requiredApprovals,
        createdBy: personOf(actor),
        createdAt: now,
        updatedAt: now,
        changes: proposed.reduce<StoredChange[]>(combineChanges, []),
        approvals: [],
        rejections: [],
        comments: [],
        schedule: null,
        failureReason: null,
        appliedAt: null,
      };
      await this.deps.store.insert(created, tx.session);
      await tx.record({ type: "change-request-created", actor, project, environment, data: { changeRequestId: id, title: created.title } });
      return created;
    });
    return this.view(saved);
  }

  /** The checks a direct change would make, run when the change is proposed (400 on a bad payload). */
  private async validateChange(
    project: string,
    environment: string,
    change: ChangeRequestChange,
    path: string,
  ): Promise<{ feature: FeatureDocument | null; segment: SegmentDocument | null }> {
    const bad = (message: string, field = path): never => {
      throw new ValidationError(`Invalid ${field}: ${message}`, [{ path: field, message }]);
    };
    const withPath = async (field: string, check: () => Promise<void> | void) => {
      try {
        await check();
      } catch (err) {
        if (err instanceof VexilError && err.status < 500) bad(err.message, field);
        throw err;
      }
    };
    if (change.action === "updateSegment" || change.action === "deleteSegment") {
      const segment = await this.deps.segments.find(change.payload.id);
      if (!segment) bad(`no segment exists with ID "${change.payload.id}"`, `${path}.payload.id`);
      if (change.action === "updateSegment") {
        await withPath(`${path}.payload.constraints`, () =>
          this.deps.validateConstraints(change.payload.constraints, `${path}.payload.constraints`),
        );
      }
      return { feature: null, segment };
    }
    const feature = await this.deps.features.find(change.feature);
    if (!feature || feature.project !== project || feature.archived)
      bad(`feature ${change.feature} does not exist in project ${project}`, `${path}.feature`);
    const strategies = environmentOf(feature!, environment)?.strategies ?? [];
    const strategy = (id: string, field: string): FeatureStrategyDocument =>
      strategies.find((s) => s.id === id) ?? bad(`strategy ${id} does not exist for ${change.feature} in ${environment}`, field);
    switch (change.action) {
      case "addStrategy":
        await withPath(`${path}.payload`, () => this.deps.featureStrategies.assertValidStrategy(change.payload, project));
        break;
      case "updateStrategy":
        strategy(change.payload.id, `${path}.payload.id`);
        await withPath(`${path}.payload`, () => this.deps.featureStrategies.assertValidStrategy(change.payload, project));
        break;
      case "deleteStrategy":
        strategy(change.payload.id, `${path}.payload.id`);
        break;
      case "reorderStrategy":
        change.payload.forEach((entry, j) => strategy(entry.id, `${path}.payload.${j}.id`));
        break;
      case "patchVariant":
        await withPath(`${path}.payload.variants`, () => void spreadVariantWeights(change.payload.variants));
        break;
      case "addDependency": {
        const problem = await this.deps.dependencies.problem(project, change.feature, change.payload.feature);
        if (problem) bad(problem, `${path}.payload.feature`);
        if (change.payload.variants && change.payload.variants.length > 0 && !change.payload.enabled) {
          bad("variants only apply when the parent is enabled", `${path}.payload.variants`);
        }
        break;
      }
      case "updateEnabled":
      case "archiveFeature":
      case "deleteDependency":
        break;
    }
    return { feature, segment: null };
  }

  // ---- reading --------------------------------------------------------------------------------------

  async get(project: string, id: number): Promise<ChangeRequest> {
    return this.view(await this.load(project, id));
  }

  /** A project's requests; drafts are private to their author until sent to review. */
  async list(project: string, viewer: Actor, filter: { state?: ChangeRequestState; createdBy?: number } = {}): Promise<ChangeRequest[]> {
    await this.deps.projects.get(project);
    const docs = await this.deps.store.list({ project, ...filter });
    return this.views(docs.filter((doc) => doc.state !== "Draft" || doc.createdBy.id === viewer.userId));
  }

  async listOpen(project: string, viewer: Actor): Promise<ChangeRequest[]> {
    await this.deps.projects.get(project);
    const docs = await this.deps.store.list({ project, createdBy: viewer.userId, state: openStates });
    return this.views(docs);
  }

  /** Strategies proposed (added or updated) by open change requests, for segment usage. */
  async pendingStrategies(): Promise<ProposedStrategy[]> {
    const pending: ProposedStrategy[] = [];
    for (const request of await this.deps.store.list({ state: openStates })) {
      for (const change of request.changes) {
        if ((change.action !== "addStrategy" && change.action !== "updateStrategy") || change.feature === null) continue;
        const payload = change.payload as { id?: string; name: string; segments?: number[] | null };
        pending.push({
          ...(change.action === "updateStrategy" && payload.id ? { id: payload.id } : {}),
          projectId: request.project,
          featureName: change.feature,
          strategyName: payload.name,
          environment: request.environment,
          segments: payload.segments ?? [],
          changeRequest: { id: request._id, title: request.title },
        });
      }
    }
    return pending;
  }

  async search(
    viewer: Actor,
    query: { project?: string; state?: ChangeRequestState; createdBy?: number; offset: number; limit: number },
    canSee: (project: string) => Promise<boolean>,
  ): Promise<{ changeRequests: ChangeRequest[]; total: number }> {
    const docs: ChangeRequestDocument[] = [];
    for (const doc of await this.deps.store.list({ project: query.project, state: query.state, createdBy: query.createdBy })) {
      if (doc.state === "Draft" && doc.createdBy.id !== viewer.userId) continue;
      if (await canSee(doc.project)) docs.push(doc);
    }
    return { changeRequests: await this.views(docs.slice(query.offset, query.offset + query.limit)), total: docs.length };
  }

  // ---- moves ---------------------------------------------------------------------------------------

  /** PUT .../state, as Unleash moves requests. */
  async changeState(project: string, id: number, input: ChangeRequestStateInput, actor: Actor): Promise<ChangeRequest> {
    const by = personOf(actor);
    switch (input.state) {
      case "In review":
        return this.move(project, id, { kind: "submit", by }, actor, input.comment);
      case "Approved":
        return this.move(project, id, { kind: "approve", by }, actor, input.comment);
      case "Rejected":
        return this.move(project, id, { kind: "reject", by }, actor, input.comment);
      case "Cancelled":
        return this.move(project, id, { kind: "cancel", by }, actor, input.comment);
      case "Scheduled": {
        if (!input.scheduledAt)
          throw new ValidationError("scheduledAt is required to schedule a change request", [{ path: "scheduledAt", message: "Required" }]);
        const result = await this.move(project, id, { kind: "schedule", by, at: new Date(input.scheduledAt) }, actor, input.comment);
        for (const listener of this.scheduledListeners) listener();
        return result;
      }
      case "Applied":
        return this.apply(project, id, actor);
    }
  }

  private async move(
    project: string,
    id: number,
    move: Exclude<Move, { kind: "apply" }>,
    actor: Actor,
    comment?: string,
  ): Promise<ChangeRequest> {
    const saved = await this.deps.unitOfWork.run(async (tx) => {
      const request = await this.load(project, id, tx.session);
      const now = this.deps.clock();
      const { next, events } = decide(request, move, now);
      const withComment = comment?.trim() ? { ...next, comments: [...next.comments, await this.newComment(comment, actor, now)] } : next;
      await this.deps.store.replace(withComment, tx.session);
      await this.recordEvents(tx.record, events, withComment, actor);
      return withComment;
    });
    return this.view(saved);
  }

  /**
   * Applies every change or none: one unit of work, the domain methods of direct changes joining
   * it. A failure leaves the request as it was, with the reason recorded, and is rethrown.
   */
  async apply(project: string, id: number, actor: Actor): Promise<ChangeRequest> {
    const request = await this.load(project, id);
    const conflicts = [...(await this.conflicts(request)).values()];
    decide(request, { kind: "apply", by: personOf(actor), conflicts }, this.deps.clock());
    try {
      return this.view(await this.applyNow(request, actor, ["change-request-applied"]));
    } catch (err) {
      await this.recordFailure(request._id, err, null);
      throw err;
    }
  }

  /** The scheduler's entry: applies a claimed scheduled request as the one who scheduled it. */
  async applyScheduled(id: number): Promise<void> {
    const request = await this.deps.store.get(id);
    if (!request || request.state !== "Scheduled" || !request.schedule) return;
    const actor = actorOf(request.schedule.by);
    try {
      const conflicts = [...(await this.conflicts(request)).values()];
      decide(request, { kind: "apply", by: request.schedule.by, conflicts }, this.deps.clock());
      await this.applyNow(request, actor, ["change-request-applied", "change-request-scheduled-application-success"]);
    } catch (err) {
      await this.recordFailure(id, err, actor);
    }
  }

  private async applyNow(request: ChangeRequestDocument, actor: Actor, events: ChangeRequestEventType[]): Promise<ChangeRequestDocument> {
    const ordered = [...request.changes].sort((a, b) => applyOrder[a.action] - applyOrder[b.action] || a.id - b.id);
    return this.deps.unitOfWork.run((tx) =>
      this.applying.run(request._id, async () => {
        const current = await this.load(request.project, request._id, tx.session);
        if (current.updatedAt.getTime() !== request.updatedAt.getTime()) {
          throw new ValidationError(`Change request ${request._id} changed while it was being applied; try again`);
        }
        for (const change of ordered) await this.applyChange(request, change, actor);
        const now = this.deps.clock();
        const { next } = decide(current, { kind: "apply", by: personOf(actor), conflicts: [] }, now);
        await this.deps.store.replace(next, tx.session);
        await this.recordEvents(tx.record, events, next, actor);
        return next;
      }),
    );
  }

  private async applyChange(request: ChangeRequestDocument, change: StoredChange, actor: Actor): Promise<void> {
    const { project, environment } = request;
    const { features, featureStrategies, segments, dependencies } = this.deps;
    const c = { action: change.action, feature: change.feature, payload: change.payload } as ChangeRequestChange;
    switch (c.action) {
      case "updateEnabled":
        await featureStrategies.setEnvironmentEnabled(project, c.feature, environment, c.payload.enabled, actor, {
          shouldActivateDisabledStrategies: c.payload.shouldActivateDisabledStrategies ?? false,
        });
        return;
      case "addStrategy":
        await featureStrategies.addStrategy(project, c.feature, environment, c.payload, actor);
        return;
      case "updateStrategy": {
        const { id, ...fields } = c.payload;
        await featureStrategies.updateStrategy(project, c.feature, environment, id, fields as StrategyFields & { name: string }, actor);
        return;
      }
      case "deleteStrategy":
        await featureStrategies.deleteStrategy(project, c.feature, environment, c.payload.id, actor);
        return;
      case "reorderStrategy":
        await featureStrategies.setStrategySortOrder(project, c.feature, environment, c.payload, actor);
        return;
      case "patchVariant":
        await featureStrategies.setVariants(project, c.feature, [environment], c.payload.variants, actor);
        return;
      case "archiveFeature":
        await features.archive(project, [c.feature], actor);
        return;
      case "addDependency":
        await dependencies.add(
          project,
          c.feature,
          { feature: c.payload.feature, enabled: c.payload.enabled, variants: c.payload.variants ?? [] },
          actor,
        );
        return;
      case "deleteDependency":
        await dependencies.removeAll(project, c.feature, actor);
        return;
      case "updateSegment": {
        const { id, ...input } = c.payload;
        await segments.update(id, input, actor);
        return;
      }
      case "deleteSegment":
        await segments.delete(c.payload.id, actor);
        return;
    }
  }

  private async recordFailure(id: number, err: unknown, scheduledActor: Actor | null): Promise<void> {
    const reason = err instanceof Error ? err.message : String(err);
    await this.deps.unitOfWork.run(async (tx) => {
      const request = await this.deps.store.get(id, tx.session);
      if (!request) return;
      if (scheduledActor && request.schedule) {
        await this.deps.store.replace(
          { ...request, schedule: { ...request.schedule, status: "failed", failureReason: reason }, failureReason: reason },
          tx.session,
        );
        await tx.record({
          type: "change-request-scheduled-application-failure",
          actor: scheduledActor,
          project: request.project,
          environment: request.environment,
          data: { changeRequestId: id, failureReason: reason },
        });
      } else {
        await this.deps.store.replace({ ...request, failureReason: reason }, tx.session);
      }
    });
  }

  // ---- editing ----------------------------------------------------------------------------------------

  async discard(project: string, id: number, actor: Actor): Promise<void> {
    await this.deps.unitOfWork.run(async (tx) => {
      const request = await this.load(project, id, tx.session);
      if (request.state !== "Draft") throw new ValidationError(`Only a draft can be discarded; change request ${id} is ${request.state}`);
      if (request.createdBy.id !== actor.userId)
        throw new ChangeRequestForbidden("CREATE_CHANGE_REQUEST", "Only the creator of a draft can discard it");
      await this.deps.store.delete(id, tx.session);
      await tx.record({
        type: "change-request-discarded",
        actor,
        project,
        environment: request.environment,
        data: { changeRequestId: id },
      });
    });
  }

  async addComment(project: string, id: number, text: string, actor: Actor) {
    return this.deps.unitOfWork.run(async (tx) => {
      const request = await this.load(project, id, tx.session);
      const comment = await this.newComment(text, actor, this.deps.clock());
      await this.deps.store.replace({ ...request, comments: [...request.comments, comment] }, tx.session);
      return {
        id: comment.id,
        text: comment.text,
        createdBy: { username: comment.createdBy.username },
        createdAt: comment.createdAt.toISOString(),
      };
    });
  }

  async updateTitle(project: string, id: number, title: string, actor: Actor): Promise<ChangeRequest> {
    const saved = await this.deps.unitOfWork.run(async (tx) => {
      const request = await this.load(project, id, tx.session);
      assertNotFinal(request, "retitled");
      if (request.createdBy.id !== actor.userId)
        throw new ChangeRequestForbidden("CREATE_CHANGE_REQUEST", "Only the creator of a change request can change its title");
      const next = { ...request, title, updatedAt: this.deps.clock() };
      await this.deps.store.replace(next, tx.session);
      return next;
    });
    return this.view(saved);
  }

  async removeChange(project: string, id: number, changeId: number, actor: Actor): Promise<ChangeRequest> {
    const saved = await this.deps.unitOfWork.run(async (tx) => {
      const request = await this.load(project, id, tx.session);
      if (request.createdBy.id !== actor.userId)
        throw new ChangeRequestForbidden("CREATE_CHANGE_REQUEST", "Only the creator of a change request can remove its changes");
      assertEditable(request);
      if (!request.changes.some((c) => c.id === changeId)) throw new NotFoundError(`Change request ${id} has no change ${changeId}`);
      const next = afterContentChange(
        request,
        request.changes.filter((c) => c.id !== changeId),
        this.deps.clock(),
      );
      await this.deps.store.replace(next, tx.session);
      await tx.record({
        type: "change-discarded",
        actor,
        project,
        environment: request.environment,
        data: { changeRequestId: id, changeId },
      });
      return next;
    });
    return this.view(saved);
  }

  // ---- helpers --------------------------------------------------------------------------------------

  private async newComment(text: string, actor: Actor, now: Date) {
    return { id: await this.deps.store.nextChangeId(), text: text.trim(), createdBy: personOf(actor), createdAt: now };
  }

  private async recordEvents(
    record: Transaction["record"],
    events: ChangeRequestEventType[],
    request: ChangeRequestDocument,
    actor: Actor,
  ): Promise<void> {
    for (const type of events) {
      await record({
        type,
        actor,
        project: request.project,
        environment: request.environment,
        data: {
          changeRequestId: request._id,
          title: request.title,
          state: request.state,
          approvals: request.approvals.length,
          minApprovals: request.minApprovals,
        },
      });
    }
  }

  private async assertProjectEnvironment(project: string, environment: string): Promise<void> {
    await this.deps.projects.get(project);
    const views = await this.deps.projects.environmentViews(project);
    if (!views.some((v) => v.name === environment))
      throw new NotFoundError(`Environment ${environment} is not enabled in project ${project}`);
  }

  private async load(project: string, id: number, session?: Parameters<ChangeRequestStore["get"]>[1]): Promise<ChangeRequestDocument> {
    const request = await this.deps.store.get(id, session);
    if (!request || request.project !== project) throw new NotFoundError(`Could not find change request ${id} in project ${project}`);
    return request;
  }

  /** Conflicts of each change, by change id, against the flags and segments as they are now. */
  private async conflicts(request: ChangeRequestDocument): Promise<Map<number, string>> {
    return (await this.context(request)).conflicts;
  }

  private async context(request: ChangeRequestDocument): Promise<ViewContext> {
    const features = new Map<string, FeatureDocument | null>();
    const segments = new Map<number, SegmentDocument | null>();
    for (const change of request.changes) {
      if (change.feature !== null && !features.has(change.feature))
        features.set(change.feature, await this.deps.features.find(change.feature));
      if (change.feature === null) {
        const id = (change.payload as { id: number }).id;
        if (!segments.has(id)) segments.set(id, await this.deps.segments.find(id));
      }
    }
    const context: ViewContext = { conflicts: new Map(), featureConflicts: new Map(), segmentNames: new Map(), defaultChanges: new Map() };
    const finished = request.state === "Applied" || request.state === "Cancelled" || request.state === "Rejected";
    for (const [id, segment] of segments) if (segment) context.segmentNames.set(id, segment.name);
    if (finished) return context;
    for (const change of request.changes) {
      const feature = change.feature === null ? null : (features.get(change.feature) ?? null);
      const segment = change.feature === null ? (segments.get((change.payload as { id: number }).id) ?? null) : null;
      const conflict = conflictOf(change, { project: request.project, environment: request.environment, feature, segment });
      if (conflict) context.conflicts.set(change.id, conflict);
    }
    for (const [name, feature] of features) {
      const conflict = featureConflictOf(name, { feature, project: request.project });
      if (conflict) {
        context.featureConflicts.set(name, conflict);
        continue;
      }
      const defaultChange = await this.defaultChange(request, name, feature!);
      if (defaultChange) context.defaultChanges.set(name, defaultChange);
    }
    return context;
  }

  /**
   * What enabling the flag will add when applied, as a direct enable does: the environment's
   * default strategy when no strategy would be enabled (computed against the flag as it is now).
   */
  private async defaultChange(request: ChangeRequestDocument, name: string, feature: FeatureDocument) {
    const changes = request.changes.filter((c) => c.feature === name);
    const enable = changes.find((c) => c.action === "updateEnabled" && (c.payload as { enabled: boolean }).enabled);
    if (!enable) return undefined;
    if (changes.some((c) => c.action === "addStrategy" && !(c.payload as { disabled?: boolean | null }).disabled)) return undefined;
    const strategies = environmentOf(feature, request.environment)?.strategies ?? [];
    if (strategies.some((s) => !s.disabled)) return undefined;
    if (strategies.length > 0 && (enable.payload as { shouldActivateDisabledStrategies?: boolean }).shouldActivateDisabledStrategies)
      return undefined;
    const strategy = await this.deps.projects.defaultStrategy(request.project, request.environment);
    return { action: "addStrategy", payload: { ...strategy, parameters: strategyParameters(strategy, name) } as Record<string, unknown> };
  }

  private async view(doc: ChangeRequestDocument): Promise<ChangeRequest> {
    return toChangeRequestResponse(doc, await this.context(doc));
  }

  private views(docs: ChangeRequestDocument[]): Promise<ChangeRequest[]> {
    return Promise.all(docs.map((doc) => this.view(doc)));
  }
}
