/**
 * ChangeRequestService: proposing changes (each checked as a direct change would be), reading
 * requests, and the author's edits (title, comments, removing a change, discarding a draft).
 * ChangeRequestConfig holds which environments require requests; ChangeRequestReview moves and applies them.
 */
import { changeRequestActionTable, type ChangeRequest, type ChangeRequestChange, type ChangeRequestState } from "@vexil/contracts";
import { NotFoundError, ValidationError } from "@vexil/errors";
import type { Actor } from "../access/actor.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import type { ProposedStrategy } from "../segments/segment-service.js";
import { baseOf, validateProposal, type ActionPorts, type ActionTable } from "./change-request-actions.js";
import type { ChangeRequestConfig, ProjectEnvironments } from "./change-request-config.js";
import { personOf, type ChangeRequestDocument, type StoredChange } from "./change-request-model.js";
import { afterContentChange, assertEditable, assertNotFinal, ChangeRequestForbidden, combineChanges } from "./change-request-rules.js";
import { loadInProject, newComment, type ChangeRequestStore } from "./change-request-store.js";
import type { ChangeRequestViewer } from "./change-request-view.js";

/** Requests whose changes may still be applied. */
export const openStates: ChangeRequestState[] = ["Draft", "In review", "Approved", "Scheduled"];

/** Strategies proposed (added or updated) by open change requests, for segment usage. */
export async function pendingStrategies(store: Pick<ChangeRequestStore, "list">): Promise<ProposedStrategy[]> {
  const pending: ProposedStrategy[] = [];
  for (const request of await store.list({ state: openStates })) {
    for (const change of request.changes) {
      if (!changeRequestActionTable[change.action].proposesStrategy || change.feature === null) continue;
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

export class ChangeRequestService {
  constructor(
    private readonly deps: {
      store: ChangeRequestStore;
      config: Pick<ChangeRequestConfig, "assertProjectEnvironment">;
      ports: Pick<ActionPorts, "features" | "segments">;
      actions: ActionTable;
      viewer: ChangeRequestViewer;
      projects: Pick<ProjectEnvironments, "get">;
      unitOfWork: UnitOfWork;
      clock: () => Date;
    },
  ) {}

  // ---- proposing ----------------------------------------------------------------------------------

  /** POST .../environments/:environment/change-requests: the changes join the caller's draft, or start one. */
  async addChanges(project: string, environment: string, changes: ChangeRequestChange[], actor: Actor): Promise<ChangeRequest> {
    await this.deps.config.assertProjectEnvironment(project, environment);
    const setting = await this.deps.store.setting(project, environment);
    if (!setting?.enabled) {
      throw new ValidationError(`Change requests are not enabled for environment ${environment} in project ${project}`);
    }
    const now = this.deps.clock();
    const proposed: StoredChange[] = [];
    for (const [i, change] of changes.entries()) {
      const target = { project, environment };
      const { feature, segment } = await validateProposal(this.deps.ports, this.deps.actions, target, change, `body.${i}`);
      proposed.push({
        id: 0,
        action: change.action,
        feature: "feature" in change ? change.feature : null,
        payload: "payload" in change ? change.payload : {},
        createdBy: personOf(actor),
        createdAt: now,
        base: baseOf(this.deps.actions, change, feature, segment, environment),
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
    return this.deps.viewer.view(saved);
  }

  // ---- reading --------------------------------------------------------------------------------------

  async get(project: string, id: number): Promise<ChangeRequest> {
    return this.deps.viewer.view(await loadInProject(this.deps.store, project, id));
  }

  /** A project's requests; drafts are private to their author until sent to review. */
  async list(project: string, viewer: Actor, filter: { state?: ChangeRequestState; createdBy?: number } = {}): Promise<ChangeRequest[]> {
    await this.deps.projects.get(project);
    const docs = await this.deps.store.list({ project, ...filter });
    return this.deps.viewer.views(docs.filter((doc) => doc.state !== "Draft" || doc.createdBy.id === viewer.userId));
  }

  async listOpen(project: string, viewer: Actor): Promise<ChangeRequest[]> {
    await this.deps.projects.get(project);
    const docs = await this.deps.store.list({ project, createdBy: viewer.userId, state: openStates });
    return this.deps.viewer.views(docs);
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
    return { changeRequests: await this.deps.viewer.views(docs.slice(query.offset, query.offset + query.limit)), total: docs.length };
  }

  // ---- editing ----------------------------------------------------------------------------------------

  async discard(project: string, id: number, actor: Actor): Promise<void> {
    await this.deps.unitOfWork.run(async (tx) => {
      const request = await loadInProject(this.deps.store, project, id, tx.session);
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
      const request = await loadInProject(this.deps.store, project, id, tx.session);
      const comment = await newComment(this.deps.store, text, actor, this.deps.clock());
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
      const request = await loadInProject(this.deps.store, project, id, tx.session);
      assertNotFinal(request, "retitled");
      if (request.createdBy.id !== actor.userId)
        throw new ChangeRequestForbidden("CREATE_CHANGE_REQUEST", "Only the creator of a change request can change its title");
      const next = { ...request, title, updatedAt: this.deps.clock() };
      await this.deps.store.replace(next, tx.session);
      return next;
    });
    return this.deps.viewer.view(saved);
  }

  async removeChange(project: string, id: number, changeId: number, actor: Actor): Promise<ChangeRequest> {
    const saved = await this.deps.unitOfWork.run(async (tx) => {
      const request = await loadInProject(this.deps.store, project, id, tx.session);
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
    return this.deps.viewer.view(saved);
  }
}
