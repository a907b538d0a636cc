/**
 * The rules of change requests as plain functions: which moves are allowed from which state, how
 * a new change combines with the ones already proposed, and when a flag has gone from under its
 * proposed changes (the per-action conflicts are rows of the action table). No I/O; the service
 * loads, decides with these, and writes.
 */
import { changeRequestActionTable } from "@vexil/contracts";
import type { ChangeRequestEventType } from "./change-request-events.js";
import { NameExistsError, NoAccessError, ValidationError } from "@vexil/errors";
import type { FeatureDocument, FeatureStrategyDocument } from "../features/feature-model.js";
import type { ChangeRequestDocument, Person, StoredChange } from "./change-request-model.js";

/** A 403 whose message says what the change-request rules require. */
export class ChangeRequestForbidden extends NoAccessError {
  constructor(permission: string, message: string, environment?: string) {
    super(permission, environment);
    this.message = message;
  }
}

/** 409: the request is not in a state that allows the move (the spec's "conflicts with ... state"). */
export class ChangeRequestStateConflict extends NameExistsError {}

export const finalStates = ["Applied", "Cancelled", "Rejected"] as const;
const editableStates = ["Draft", "In review", "Approved"] as const;

export type Move =
  | { kind: "submit"; by: Person }
  | { kind: "approve"; by: Person }
  | { kind: "reject"; by: Person; comment?: string }
  | { kind: "cancel"; by: Person }
  | { kind: "schedule"; by: Person; at: Date }
  | { kind: "apply"; by: Person; conflicts: string[] };

export interface Decision {
  next: ChangeRequestDocument;
  events: ChangeRequestEventType[];
}

/** Decides a move; throws when the rules refuse it. `apply` only says whether applying may start. */
export function decide(request: ChangeRequestDocument, move: Move, now: Date): Decision {
  const next: ChangeRequestDocument = { ...request, updatedAt: now };
  const isCreator = move.by.id === request.createdBy.id;
  switch (move.kind) {
    case "submit":
      requireState(request, ["Draft"], "sent to review");
      if (!isCreator)
        throw new ChangeRequestForbidden("CREATE_CHANGE_REQUEST", "Only the creator of a change request can send it to review");
      if (request.changes.length === 0) throw new ValidationError("A change request without changes cannot be sent to review");
      return { next: { ...next, state: "In review" }, events: ["change-request-sent-to-review"] };

    case "approve": {
      requireState(request, ["In review"], "approved");
      if (isCreator) throw new ChangeRequestForbidden("APPROVE_CHANGE_REQUEST", "You cannot approve your own change request");
      if (request.approvals.some((a) => a.createdBy.id === move.by.id)) {
        throw new ChangeRequestStateConflict(`${move.by.username} has already approved change request ${request._id}`);
      }
      const approvals = [...request.approvals, { createdBy: move.by, createdAt: now }];
      const approved = approvals.length >= request.minApprovals;
      return {
        next: { ...next, approvals, state: approved ? "Approved" : "In review" },
        events: approved ? ["change-request-approval-added", "change-request-approved"] : ["change-request-approval-added"],
      };
    }

    case "reject":
      requireState(request, ["In review", "Approved", "Scheduled"], "rejected");
      if (isCreator)
        throw new ChangeRequestForbidden("APPROVE_CHANGE_REQUEST", "You cannot reject your own change request; cancel it instead");
      return {
        next: { ...next, state: "Rejected", schedule: null, rejections: [...request.rejections, { createdBy: move.by, createdAt: now }] },
        events: ["change-request-rejected"],
      };

    case "cancel":
      requireState(request, ["Draft", "In review", "Approved", "Scheduled"], "cancelled");
      if (!isCreator) throw new ChangeRequestForbidden("CREATE_CHANGE_REQUEST", "Only the creator of a change request can cancel it");
      return { next: { ...next, state: "Cancelled", schedule: null }, events: ["change-request-cancelled"] };

    case "schedule":
      requireState(request, ["Approved", "Scheduled"], "scheduled");
      requireApprovals(request);
      if (move.at.getTime() <= now.getTime()) {
        throw new ValidationError("scheduledAt must be in the future", [{ path: "scheduledAt", message: "Must be in the future" }]);
      }
      return {
        next: { ...next, state: "Scheduled", schedule: { scheduledAt: move.at, status: "pending", by: move.by } },
        events: ["change-request-scheduled"],
      };

    case "apply":
      requireState(request, ["Approved", "Scheduled"], "applied");
      requireApprovals(request);
      if (move.conflicts.length > 0) {
        throw new ChangeRequestStateConflict(
          `Change request ${request._id} has conflicts and cannot be applied until they are resolved: ${move.conflicts.join("; ")}`,
        );
      }
      return {
        next: { ...next, state: "Applied", appliedAt: now, failureReason: null, schedule: null },
        events: ["change-request-applied"],
      };
  }
}

/**
 * Changing the content of a request (removing a change) is allowed until it is scheduled or final;
 * a reviewed request then needs reviewing again, as in Unleash.
 */
export function afterContentChange(request: ChangeRequestDocument, changes: StoredChange[], now: Date): ChangeRequestDocument {
  assertEditable(request);
  const reviewed = request.state !== "Draft";
  return {
    ...request,
    changes,
    updatedAt: now,
    ...(reviewed ? { state: "In review" as const, approvals: [], rejections: [] } : {}),
  };
}

export function assertEditable(request: ChangeRequestDocument): void {
  requireState(request, editableStates, "edited");
}

export function assertNotFinal(request: ChangeRequestDocument, what: string): void {
  if ((finalStates as readonly string[]).includes(request.state)) {
    throw new ChangeRequestStateConflict(`Change request ${request._id} is ${request.state} and cannot be ${what}`);
  }
}

function requireState(request: ChangeRequestDocument, allowed: readonly string[], what: string): void {
  if (!allowed.includes(request.state)) {
    throw new ChangeRequestStateConflict(
      `Change request ${request._id} is ${request.state} and cannot be ${what}; that needs state ${allowed.join(" or ")}`,
    );
  }
}

function requireApprovals(request: ChangeRequestDocument): void {
  if (request.approvals.length < request.minApprovals) {
    throw new ChangeRequestStateConflict(
      `Change request ${request._id} has ${request.approvals.length} of the ${request.minApprovals} approvals it needs`,
    );
  }
}

// ---- combining changes --------------------------------------------------------------------------

/**
 * Which earlier change a new one replaces: one of the same combine group (the action table's) on
 * the same target, e.g. the latest on/off of a flag, or the latest update or delete of one strategy
 * or segment. Changes without a group (added strategies) accumulate.
 */
export function combineKey(change: Pick<StoredChange, "action" | "feature" | "payload">): string | null {
  const { combineGroup, target } = changeRequestActionTable[change.action];
  if (combineGroup === null) return null;
  const payload = change.payload as { id?: unknown } | undefined;
  switch (target) {
    case "flag":
      return `${combineGroup}:${change.feature}`;
    case "strategy":
      return `${combineGroup}:${change.feature}:${String(payload?.id)}`;
    case "segment":
      return `${combineGroup}:${String(payload?.id)}`;
  }
}

export function combineChanges(existing: readonly StoredChange[], incoming: StoredChange): StoredChange[] {
  const key = combineKey(incoming);
  const kept = key === null ? existing : existing.filter((change) => combineKey(change) !== key);
  return [...kept, incoming];
}

// ---- conflicts ----------------------------------------------------------------------------------

/** The fields of a strategy a proposal depends on; sortOrder is left out so reordering is no conflict. */
export function strategyFingerprint(strategy: FeatureStrategyDocument): string {
  const { name, title, disabled, constraints, variants, parameters, segments } = strategy;
  return canonicalJson({ name, title, disabled, constraints, variants, parameters, segments });
}

export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

/** The flag itself is gone, archived or moved: every change to it conflicts. */
export function featureConflictOf(name: string, now: { feature: FeatureDocument | null; project: string }): string | undefined {
  if (!now.feature) return `Feature ${name} was deleted after this change was proposed`;
  if (now.feature.archived) return `Feature ${name} was archived after this change was proposed`;
  if (now.feature.project !== now.project) return `Feature ${name} was moved to project ${now.feature.project}`;
  return undefined;
}
