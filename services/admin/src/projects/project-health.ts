import { featureTypeLifetimes, type FeatureType, type ProjectStatistics } from "@vexil/contracts";
import type { EventDocument } from "../events/event-store.js";
import type { FeatureDocument } from "../features/feature-model.js";

const dayMs = 24 * 60 * 60 * 1000;
/** Unleash compares a 30-day window with the 30 days before it. */
export const statsWindowDays = 30;

/** A live flag older than its type's expected lifetime that nobody marked stale (Unleash's rule). */
export function isPotentiallyStale(feature: Pick<FeatureDocument, "type" | "stale" | "createdAt">, now: Date): boolean {
  if (feature.stale) return false;
  const lifetime = featureTypeLifetimes[feature.type as FeatureType];
  if (lifetime === undefined || lifetime === null) return false;
  return now.getTime() - feature.createdAt.getTime() > lifetime * dayMs;
}

export interface HealthCounts {
  activeCount: number;
  staleCount: number;
  potentiallyStaleCount: number;
  /** Share of live flags neither stale nor potentially stale, 0..100; 100 for a project without flags. */
  health: number;
}

/** Health of a project's live (non-archived) flags. */
export function healthOf(features: readonly FeatureDocument[], now: Date): HealthCounts {
  const live = features.filter((f) => !f.archived);
  const staleCount = live.filter((f) => f.stale).length;
  const potentiallyStaleCount = live.filter((f) => isPotentiallyStale(f, now)).length;
  const activeCount = live.length - staleCount;
  const health = live.length === 0 ? 100 : Math.round(((live.length - staleCount - potentiallyStaleCount) / live.length) * 100);
  return { activeCount, staleCount, potentiallyStaleCount, health };
}

/**
 * The project's statistics from its event log: counts in the current 30 days and the 30 before,
 * and the average days from a flag's creation to its first enabling in a production-type
 * environment, for flags first enabled there in the current window.
 */
export function statisticsOf(
  events: readonly EventDocument[],
  features: readonly Pick<FeatureDocument, "_id" | "createdAt">[],
  productionEnvironments: ReadonlySet<string>,
  now: Date,
): ProjectStatistics {
  const currentStart = now.getTime() - statsWindowDays * dayMs;
  const pastStart = currentStart - statsWindowDays * dayMs;
  const inCurrent = (e: EventDocument) => e.createdAt.getTime() > currentStart && e.createdAt.getTime() <= now.getTime();
  const inPast = (e: EventDocument) => e.createdAt.getTime() > pastStart && e.createdAt.getTime() <= currentStart;
  const count = (type: string, window: (e: EventDocument) => boolean) => events.filter((e) => e.type === type && window(e)).length;

  const createdAt = new Map(features.map((f) => [f._id, f.createdAt]));
  const firstProductionEnable = new Map<string, Date>();
  for (const event of events) {
    if (event.type !== "feature-environment-enabled" || !event.featureName || !event.environment) continue;
    if (!productionEnvironments.has(event.environment)) continue;
    const seen = firstProductionEnable.get(event.featureName);
    if (!seen || event.createdAt < seen) firstProductionEnable.set(event.featureName, event.createdAt);
  }
  const durations: number[] = [];
  for (const [feature, enabledAt] of firstProductionEnable) {
    const created = createdAt.get(feature);
    if (!created || enabledAt.getTime() <= currentStart) continue;
    durations.push((enabledAt.getTime() - created.getTime()) / dayMs);
  }
  const average = durations.length === 0 ? 0 : durations.reduce((a, b) => a + b, 0) / durations.length;

  return {
    avgTimeToProdCurrentWindow: Math.round(average * 10) / 10,
    createdCurrentWindow: count("feature-created", inCurrent),
    createdPastWindow: count("feature-created", inPast),
    archivedCurrentWindow: count("feature-archived", inCurrent),
    archivedPastWindow: count("feature-archived", inPast),
    projectActivityCurrentWindow: events.filter(inCurrent).length,
    projectActivityPastWindow: events.filter(inPast).length,
    projectMembersAddedCurrentWindow: count("project-user-added", inCurrent),
  };
}

/** Events of the last two windows, newest first, paged out of the event log. */
export async function recentProjectEvents(
  list: (query: { project: string; offset: number; limit: number }) => Promise<{ events: EventDocument[] }>,
  project: string,
  now: Date,
): Promise<EventDocument[]> {
  const since = now.getTime() - 2 * statsWindowDays * dayMs;
  const collected: EventDocument[] = [];
  const limit = 500;
  for (let offset = 0; ; offset += limit) {
    const { events } = await list({ project, offset, limit });
    for (const event of events) {
      if (event.createdAt.getTime() <= since) return collected;
      collected.push(event);
    }
    if (events.length < limit) return collected;
  }
}
