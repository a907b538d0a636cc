import type { ChangeRequest, ChangeRequestFeature, ChangeRequestSegment } from "@vexil/contracts";
import type { ChangeRequestDocument, Person, StoredChange } from "./change-request-model.js";

/** What the view needs to know about the present: conflicts, current segment names, default changes. */
export interface ViewContext {
  conflicts: Map<number, string>;
  featureConflicts: Map<string, string>;
  segmentNames: Map<number, string>;
  defaultChanges: Map<string, { action: string; payload: Record<string, unknown> }>;
}

const person = (p: Person) => ({ id: p.id, username: p.username });

function entry(change: StoredChange, context: ViewContext) {
  const conflict = context.conflicts.get(change.id);
  return {
    id: change.id,
    action: change.action,
    payload: (change.payload ?? {}) as Record<string, unknown> | unknown[],
    ...(conflict ? { conflict } : {}),
    createdBy: { username: change.createdBy.username },
    createdAt: change.createdAt.toISOString(),
  };
}

/** The spec's change-request response: changes grouped by flag, segment changes apart. */
export function toChangeRequestResponse(doc: ChangeRequestDocument, context: ViewContext): ChangeRequest {
  const features = new Map<string, ChangeRequestFeature>();
  const segments: ChangeRequestSegment[] = [];
  for (const change of doc.changes) {
    if (change.feature === null) {
      const id = (change.payload as { id: number }).id;
      segments.push({
        ...entry(change, context),
        name: context.segmentNames.get(id) ?? (change.payload as { name?: string }).name ?? String(id),
      });
      continue;
    }
    let feature = features.get(change.feature);
    if (!feature) {
      const conflict = context.featureConflicts.get(change.feature);
      const defaultChange = context.defaultChanges.get(change.feature);
      feature = { name: change.feature, ...(conflict ? { conflict } : {}), changes: [], ...(defaultChange ? { defaultChange } : {}) };
      features.set(change.feature, feature);
    }
    feature.changes.push(entry(change, context));
  }
  return {
    id: doc._id,
    title: doc.title,
    environment: doc.environment,
    project: doc.project,
    minApprovals: doc.minApprovals,
    state: doc.state,
    createdBy: person(doc.createdBy),
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
    features: [...features.values()],
    segments,
    approvals: doc.approvals.map((a) => ({ createdBy: person(a.createdBy), createdAt: a.createdAt.toISOString() })),
    rejections: doc.rejections.map((r) => ({ createdBy: person(r.createdBy), createdAt: r.createdAt.toISOString() })),
    comments: doc.comments.map((c) => ({
      id: c.id,
      text: c.text,
      createdBy: { username: c.createdBy.username },
      createdAt: c.createdAt.toISOString(),
    })),
    ...(doc.schedule
      ? {
          schedule: {
            scheduledAt: doc.schedule.scheduledAt.toISOString(),
            status: doc.schedule.status,
            ...(doc.schedule.failureReason ? { failureReason: doc.schedule.failureReason, reason: doc.schedule.failureReason } : {}),
          },
        }
      : {}),
    ...(doc.failureReason ? { failureReason: doc.failureReason } : {}),
    ...(doc.appliedAt ? { appliedAt: doc.appliedAt.toISOString() } : {}),
  };
}
