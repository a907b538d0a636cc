/**
 * The review moves of a change request (send to review, approve, reject, cancel, schedule) and
 * applying it. Applying runs every change through the domain method a direct change uses, inside
 * ONE unit of work: their own units of work join it, so every change and its domain events commit
 * together or not at all.
 */
import type { ChangeRequest, ChangeRequestChange, ChangeRequestStateInput } from "@vexil/contracts";
import { ValidationError } from "@vexil/errors";
import type { Actor } from "../access/actor.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import { handlerOf, type ActionTable } from "./change-request-actions.js";
import type { ChangeRequestConfig } from "./change-request-config.js";
import { recordRequestEvents, type ChangeRequestEventType } from "./change-request-events.js";
import { actorOf, personOf, type ChangeRequestDocument } from "./change-request-model.js";
import { decide, type Move } from "./change-request-rules.js";
import { loadInProject, newComment, type ChangeRequestStore } from "./change-request-store.js";
import type { ChangeRequestViewer } from "./change-request-view.js";

export class ChangeRequestReview {
  private readonly scheduledListeners: (() => void)[] = [];

  constructor(
    private readonly deps: {
      store: ChangeRequestStore;
      config: Pick<ChangeRequestConfig, "whileApplying">;
      actions: ActionTable;
      viewer: ChangeRequestViewer;
      unitOfWork: UnitOfWork;
      clock: () => Date;
    },
  ) {}

  /** Called when a request is (re)scheduled, so the scheduler can re-arm its timer; returns the unsubscribe. */
  onScheduled(listener: () => void): () => void {
    this.scheduledListeners.push(listener);
    return () => {
      const at = this.scheduledListeners.indexOf(listener);
      if (at >= 0) this.scheduledListeners.splice(at, 1);
    };
  }

  /** PUT .../change-requests/:id/state, as Unleash moves requests. */
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
      const request = await loadInProject(this.deps.store, project, id, tx.session);
      const now = this.deps.clock();
      const { next, events } = decide(request, move, now);
      const withComment = comment?.trim()
        ? { ...next, comments: [...next.comments, await newComment(this.deps.store, comment, actor, now)] }
        : next;
      await this.deps.store.replace(withComment, tx.session);
      await recordRequestEvents(tx.record, events, withComment, actor);
      return withComment;
    });
    return this.deps.viewer.view(saved);
  }

  /**
   * Applies every change or none: one unit of work, the domain methods of direct changes joining
   * it. A failure leaves the request as it was, with the reason recorded, and is rethrown.
   */
  async apply(project: string, id: number, actor: Actor): Promise<ChangeRequest> {
    const request = await loadInProject(this.deps.store, project, id);
    const conflicts = [...(await this.deps.viewer.conflicts(request)).values()];
    decide(request, { kind: "apply", by: personOf(actor), conflicts }, this.deps.clock());
    try {
      return this.deps.viewer.view(await this.applyNow(request, actor, ["change-request-applied"]));
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
      const conflicts = [...(await this.deps.viewer.conflicts(request)).values()];
      decide(request, { kind: "apply", by: request.schedule.by, conflicts }, this.deps.clock());
      await this.applyNow(request, actor, ["change-request-applied", "change-request-scheduled-application-success"]);
    } catch (err) {
      await this.recordFailure(id, err, actor);
    }
  }

  private async applyNow(request: ChangeRequestDocument, actor: Actor, events: ChangeRequestEventType[]): Promise<ChangeRequestDocument> {
    const { actions } = this.deps;
    const ordered = [...request.changes].sort((a, b) => actions[a.action].order - actions[b.action].order || a.id - b.id);
    const { project, environment } = request;
    return this.deps.unitOfWork.run((tx) =>
      this.deps.config.whileApplying(request._id, async () => {
        const current = await loadInProject(this.deps.store, project, request._id, tx.session);
        if (current.updatedAt.getTime() !== request.updatedAt.getTime()) {
          throw new ValidationError(`Change request ${request._id} changed while it was being applied; try again`);
        }
        for (const stored of ordered) {
          const change = { action: stored.action, feature: stored.feature, payload: stored.payload } as ChangeRequestChange;
          await handlerOf(actions, change).apply(change, { project, environment, actor });
        }
        const { next } = decide(current, { kind: "apply", by: personOf(actor), conflicts: [] }, this.deps.clock());
        await this.deps.store.replace(next, tx.session);
        await recordRequestEvents(tx.record, events, next, actor);
        return next;
      }),
    );
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
}
