import type { ChangeRequest, ChangeRequestFeature, ChangeRequestSegment, StrategyFields } from "@vexil/contracts";
import { environmentOf, type FeatureDocument, type SegmentDocument } from "../features/feature-model.js";
import { strategyParameters } from "../features/flag-environment-service.js";
import type { ChangeRequestDocument, Person, StoredChange } from "./change-request-model.js";
import { conflictOf, type ActionTable } from "./change-request-actions.js";
import { featureConflictOf } from "./change-request-rules.js";

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

/** What the viewer reads about the present (FeatureService, SegmentService, ProjectService). */
export interface ViewSources {
  features: { find(name: string): Promise<FeatureDocument | null> };
  segments: { find(id: number): Promise<SegmentDocument | null> };
  projects: { defaultStrategy(project: string, environment: string): Promise<StrategyFields & { name: string }> };
  /** The action table, whose rows say when a change conflicts. */
  actions: ActionTable;
}

/** Change requests as the API shows them: against the flags and segments as they are now. */
export class ChangeRequestViewer {
  constructor(private readonly sources: ViewSources) {}

  async view(doc: ChangeRequestDocument): Promise<ChangeRequest> {
    return toChangeRequestResponse(doc, await this.context(doc));
  }

  views(docs: ChangeRequestDocument[]): Promise<ChangeRequest[]> {
    return Promise.all(docs.map((doc) => this.view(doc)));
  }

  /** Conflicts of each change, by change id, against the flags and segments as they are now. */
  async conflicts(request: ChangeRequestDocument): Promise<Map<number, string>> {
    return (await this.context(request)).conflicts;
  }

  private async context(request: ChangeRequestDocument): Promise<ViewContext> {
    const features = new Map<string, FeatureDocument | null>();
    const segments = new Map<number, SegmentDocument | null>();
    for (const change of request.changes) {
      if (change.feature !== null && !features.has(change.feature))
        features.set(change.feature, await this.sources.features.find(change.feature));
      if (change.feature === null) {
        const id = (change.payload as { id: number }).id;
        if (!segments.has(id)) segments.set(id, await this.sources.segments.find(id));
      }
    }
    const context: ViewContext = { conflicts: new Map(), featureConflicts: new Map(), segmentNames: new Map(), defaultChanges: new Map() };
    const finished = request.state === "Applied" || request.state === "Cancelled" || request.state === "Rejected";
    for (const [id, segment] of segments) if (segment) context.segmentNames.set(id, segment.name);
    if (finished) return context;
    for (const change of request.changes) {
      const feature = change.feature === null ? null : (features.get(change.feature) ?? null);
      const segment = change.feature === null ? (segments.get((change.payload as { id: number }).id) ?? null) : null;
      const conflict = conflictOf(this.sources.actions, change, {
        project: request.project,
        environment: request.environment,
        feature,
        segment,
      });
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
    const strategy = await this.sources.projects.defaultStrategy(request.project, request.environment);
    return { action: "addStrategy", payload: { ...strategy, parameters: strategyParameters(strategy, name) } as Record<string, unknown> };
  }
}
