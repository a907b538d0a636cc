import type { EventType } from "@vexil/contracts";

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
