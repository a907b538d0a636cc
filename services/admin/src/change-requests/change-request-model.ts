import type { ChangeRequestAction, ChangeRequestState } from "@vexil/contracts";
import type { Actor } from "../access/actor.js";

/** Who proposed, reviewed or commented, as change requests show people. */
export interface Person {
  id: number;
  username: string;
}

export const personOf = (actor: Actor): Person => ({ id: actor.userId, username: actor.name });
export const actorOf = (person: Person): Actor => ({ userId: person.id, name: person.username });

/**
 * What a change was proposed against, so a later change to the same thing shows as a conflict.
 * Only the parts a change depends on are kept: a change to production does not conflict with an
 * edit made in development.
 */
export interface ChangeBase {
  /** The flag's version when proposed (informational: any change bumps it). */
  featureVersion?: number;
  /** updateStrategy / deleteStrategy: the strategy as it was, canonical JSON without sortOrder. */
  strategy?: string;
  /** patchVariant: the environment's variants as they were, canonical JSON. */
  variants?: string;
  /** updateSegment / deleteSegment. */
  segmentVersion?: number;
}

export interface StoredChange {
  id: number;
  action: ChangeRequestAction;
  /** The flag changed; null for segment changes. */
  feature: string | null;
  /** As submitted (validated); an array for reorderStrategy, absent for archive and deleteDependency. */
  payload: unknown;
  createdBy: Person;
  createdAt: Date;
  base: ChangeBase;
}

export interface Review {
  createdBy: Person;
  createdAt: Date;
}

export interface Comment {
  id: number;
  text: string;
  createdBy: Person;
  createdAt: Date;
}

export interface Schedule {
  scheduledAt: Date;
  status: "pending" | "failed";
  failureReason?: string;
  /** Who scheduled it: the actor of the changes when they apply. */
  by: Person;
}

export interface ChangeRequestDocument {
  /** From the `change_requests` sequence. */
  _id: number;
  project: string;
  environment: string;
  title: string;
  state: ChangeRequestState;
  minApprovals: number;
  createdBy: Person;
  createdAt: Date;
  updatedAt: Date;
  changes: StoredChange[];
  approvals: Review[];
  rejections: Review[];
  comments: Comment[];
  schedule: Schedule | null;
  /** Why the last attempt to apply failed; cleared when it is applied. */
  failureReason: string | null;
  appliedAt: Date | null;
}

/** Per project environment; absent means change requests are off. */
export interface ChangeRequestSettingsDocument {
  /** `<project>:<environment>` */
  _id: string;
  project: string;
  environment: string;
  enabled: boolean;
  requiredApprovals: number;
}
