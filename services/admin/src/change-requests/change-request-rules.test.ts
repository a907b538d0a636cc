import { describe, expect, it } from "vitest";
import type { ChangeRequestDocument, Person, StoredChange } from "./change-request-model.js";
import { combineChanges, decide, afterContentChange, type Move } from "./change-request-rules.js";

const now = new Date("2026-01-01T00:00:00Z");
const alice: Person = { id: 1, username: "alice" };
const bob: Person = { id: 2, username: "bob" };
const carol: Person = { id: 3, username: "carol" };

function request(fields: Partial<ChangeRequestDocument> = {}): ChangeRequestDocument {
  return {
    _id: 7,
    project: "default",
    environment: "production",
    title: "Change request #7",
    state: "In review",
    minApprovals: 1,
    createdBy: alice,
    createdAt: now,
    updatedAt: now,
    changes: [change({})],
    approvals: [],
    rejections: [],
    comments: [],
    schedule: null,
    failureReason: null,
    appliedAt: null,
    ...fields,
  };
}

function change(fields: Partial<StoredChange>): StoredChange {
  return {
    id: 1,
    action: "updateEnabled",
    feature: "f",
    payload: { enabled: true },
    createdBy: alice,
    createdAt: now,
    base: {},
    ...fields,
  };
}

const approve = (by: Person): Move => ({ kind: "approve", by });

describe("moves", () => {
  it("sends a draft with changes to review, only by its creator", () => {
    const draft = request({ state: "Draft" });
    expect(decide(draft, { kind: "submit", by: alice }, now)).toMatchObject({
      next: { state: "In review" },
      events: ["change-request-sent-to-review"],
    });
    expect(() => decide(draft, { kind: "submit", by: bob }, now)).toThrow(/Only the creator/);
    expect(() => decide(request({ state: "Draft", changes: [] }), { kind: "submit", by: alice }, now)).toThrow(/without changes/);
  });

  it("refuses self-approval with a 403", () => {
    expect(() => decide(request(), approve(alice), now)).toThrow(
      expect.objectContaining({ status: 403, message: "You cannot approve your own change request" }),
    );
  });

  it("needs minApprovals distinct approvers", () => {
    const first = decide(request({ minApprovals: 2 }), approve(bob), now);
    expect(first.next.state).toBe("In review");
    expect(first.events).toEqual(["change-request-approval-added"]);
    expect(() => decide(first.next, approve(bob), now)).toThrow(expect.objectContaining({ status: 409 }));
    const second = decide(first.next, approve(carol), now);
    expect(second.next.state).toBe("Approved");
    expect(second.events).toEqual(["change-request-approval-added", "change-request-approved"]);
    expect(second.next.approvals.map((a) => a.createdBy.username)).toEqual(["bob", "carol"]);
  });

  it("applies only an approved request with enough approvals and no conflicts", () => {
    const apply = (conflicts: string[] = []): Move => ({ kind: "apply", by: bob, conflicts });
    expect(() => decide(request(), apply(), now)).toThrow(/is In review and cannot be applied/);
    expect(() => decide(request({ state: "Approved" }), apply(), now)).toThrow(/0 of the 1 approvals/);
    const approved = request({ state: "Approved", approvals: [{ createdBy: bob, createdAt: now }] });
    expect(() => decide(approved, apply(["The strategy was deleted"]), now)).toThrow(/has conflicts.*strategy was deleted/);
    expect(decide(approved, apply(), now)).toMatchObject({
      next: { state: "Applied", appliedAt: now },
      events: ["change-request-applied"],
    });
  });

  it("treats Rejected, Cancelled and Applied as final", () => {
    for (const state of ["Rejected", "Cancelled", "Applied"] as const) {
      const done = request({ state, approvals: [{ createdBy: bob, createdAt: now }] });
      for (const move of [
        approve(bob),
        { kind: "apply", by: bob, conflicts: [] },
        { kind: "cancel", by: alice },
        { kind: "reject", by: bob },
      ] as Move[]) {
        expect(() => decide(done, move, now)).toThrow(expect.objectContaining({ status: 409 }));
      }
      expect(() => afterContentChange(done, [], now)).toThrow(expect.objectContaining({ status: 409 }));
    }
  });

  it("lets reviewers reject and the creator cancel, not the other way round", () => {
    expect(decide(request(), { kind: "reject", by: bob }, now)).toMatchObject({
      next: { state: "Rejected", rejections: [{ createdBy: bob }] },
    });
    expect(() => decide(request(), { kind: "reject", by: alice }, now)).toThrow(/cancel it instead/);
    expect(decide(request({ state: "Draft" }), { kind: "cancel", by: alice }, now).next.state).toBe("Cancelled");
    expect(() => decide(request(), { kind: "cancel", by: bob }, now)).toThrow(/Only the creator/);
  });

  it("schedules an approved request in the future only", () => {
    const approved = request({ state: "Approved", approvals: [{ createdBy: bob, createdAt: now }] });
    const at = new Date(now.getTime() + 60_000);
    expect(decide(approved, { kind: "schedule", by: bob, at }, now)).toMatchObject({
      next: { state: "Scheduled", schedule: { scheduledAt: at, status: "pending" } },
      events: ["change-request-scheduled"],
    });
    expect(() => decide(approved, { kind: "schedule", by: bob, at: now }, now)).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => decide(request(), { kind: "schedule", by: bob, at }, now)).toThrow(expect.objectContaining({ status: 409 }));
  });

  it("sends a reviewed request back to review when its content changes", () => {
    const approved = request({ state: "Approved", approvals: [{ createdBy: bob, createdAt: now }] });
    expect(afterContentChange(approved, [], now)).toMatchObject({ state: "In review", approvals: [], changes: [] });
    expect(afterContentChange(request({ state: "Draft" }), [], now).state).toBe("Draft");
    expect(() => afterContentChange(request({ state: "Scheduled" }), [], now)).toThrow(/cannot be edited/);
  });
});

describe("combining changes", () => {
  it("keeps the latest on/off of a flag and the latest change of one strategy, accumulates added strategies", () => {
    let changes: StoredChange[] = [];
    changes = combineChanges(changes, change({ id: 1, payload: { enabled: true } }));
    changes = combineChanges(changes, change({ id: 2, action: "addStrategy", payload: { name: "default" } }));
    changes = combineChanges(changes, change({ id: 3, action: "addStrategy", payload: { name: "default" } }));
    changes = combineChanges(changes, change({ id: 4, action: "updateStrategy", payload: { id: "s1" } }));
    changes = combineChanges(changes, change({ id: 5, payload: { enabled: false } }));
    changes = combineChanges(changes, change({ id: 6, action: "deleteStrategy", payload: { id: "s1" } }));
    changes = combineChanges(changes, change({ id: 7, action: "updateEnabled", feature: "other", payload: { enabled: true } }));
    changes = combineChanges(changes, change({ id: 8, action: "addDependency", payload: { feature: "p" } }));
    changes = combineChanges(changes, change({ id: 9, action: "deleteDependency", payload: undefined }));
    expect(changes.map((c) => c.id)).toEqual([2, 3, 5, 6, 7, 9]);
  });

  it("keeps the latest change of one segment", () => {
    const segment = (id: number, segmentId: number) => change({ id, action: "updateSegment", feature: null, payload: { id: segmentId } });
    const changes = [segment(1, 10), segment(2, 11)].reduce<StoredChange[]>(combineChanges, []);
    expect(combineChanges(changes, segment(3, 10)).map((c) => c.id)).toEqual([2, 3]);
  });
});
