import type { ClientFeature, ClientSegment, ClientStrategy, Constraint } from "@vexil/contracts";
import { environmentOf, type FeatureDocument, type FeatureStrategyDocument, type SegmentDocument } from "../features/feature-model.js";

/**
 * A flag as the SDKs receive it for one environment (`/api/client/features`): enabled strategies
 * only, in their sort order, and variants exactly as stored (spread and sorted on write, as Unleash
 * stores them, so the SDKs place users where Unleash would). Key order follows Unleash's payload.
 */
export function toClientFeature(doc: FeatureDocument, environment: string): ClientFeature {
  const env = environmentOf(doc, environment);
  const feature: ClientFeature = {
    name: doc._id,
    type: doc.type,
    description: doc.description,
    project: doc.project,
    enabled: env?.enabled ?? false,
    stale: doc.stale,
    impressionData: doc.impressionData,
    strategies: env ? enabledInOrder(env.strategies).map(toClientStrategy) : [],
    variants: env?.variants ?? [],
  };
  if (doc.dependencies.length > 0) {
    // As Unleash serves them: no `variants` key on a dependency that names none.
    feature.dependencies = doc.dependencies.map(({ feature: parent, enabled, variants }) => ({
      feature: parent,
      enabled,
      ...(variants.length > 0 ? { variants } : {}),
    }));
  }
  return feature;
}

function enabledInOrder(strategies: FeatureStrategyDocument[]): FeatureStrategyDocument[] {
  return inSortOrder(strategies.filter((strategy) => !strategy.disabled));
}

/** A new list: Array.prototype.sort is stable, so equal sortOrders keep their stored (creation) order. */
export function inSortOrder(strategies: FeatureStrategyDocument[]): FeatureStrategyDocument[] {
  return [...strategies].sort((a, b) => a.sortOrder - b.sortOrder);
}

export function toClientStrategy(strategy: FeatureStrategyDocument): ClientStrategy {
  return {
    id: strategy.id,
    name: strategy.name,
    constraints: strategy.constraints.map(withValuesList),
    parameters: strategy.parameters,
    ...(strategy.segments.length > 0 ? { segments: strategy.segments } : {}),
    variants: strategy.variants,
  };
}

export function toClientSegment(doc: SegmentDocument): ClientSegment {
  return { id: doc._id, name: doc.name, constraints: doc.constraints.map(withValuesList) };
}

/** Unleash serves every constraint with a `values` list (empty for single-value operators); SDKs may expect it. */
function withValuesList(constraint: Constraint): Constraint {
  return constraint.values ? constraint : { ...constraint, values: [] };
}

/** A flag is served in the environments of its project, as in Unleash. */
export function servedIn(
  doc: FeatureDocument,
  environment: string,
  projectEnvironments: ReadonlyMap<string, ReadonlySet<string>>,
): boolean {
  return !doc.archived && projectEnvironments.get(doc.project)?.has(environment) === true;
}
