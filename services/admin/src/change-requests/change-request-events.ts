import type { EventType } from "@vexil/contracts";
import type { Actor } from "../access/actor.js";
import type { Transaction } from "../events/unit-of-work.js";
import type { ChangeRequestDocument } from "./change-request-model.js";

/** The change-request event types this slice records (Unleash's names, from `eventTypes`). */
export type ChangeRequestEventType = Extract<
  EventType,
  | "change-request-created"
  | "change-request-discarded"
  | "change-request-sent-to-review"
  | "change-request-approval-added"
  | "change-request-approved"
  | "change-request-rejected"
  | "change-request-cancelled"
  | "change-request-scheduled"
  | "change-request-applied"
  | "change-request-scheduled-application-success"
  | "change-request-scheduled-application-failure"
  | "change-request-configuration-updated"
>;

/** Records each of a move's events with the request as it is after the move. */
export async function recordRequestEvents(
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
