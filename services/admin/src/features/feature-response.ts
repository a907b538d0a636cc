import type { Feature, FeatureEnvironment, FeatureStrategy, FlagLink, Tag } from "@vexil/contracts";
import { environmentOf, type FeatureDocument, type FeatureEnvironmentDocument, type FeatureStrategyDocument } from "./feature-model.js";

/** An environment of the flag's project, as listed on the flag: in the project's order. */
export interface EnvironmentView {
  name: string;
  type: string;
  sortOrder: number;
}

/** What a flag's answer needs besides the flag itself. */
export interface FeatureResponseContext {
  environments: EnvironmentView[];
  tags?: Tag[];
  links?: FlagLink[];
  children?: string[];
  favorite?: boolean;
}

const emptyEnvironment: FeatureEnvironmentDocument = { enabled: false, strategies: [], variants: [], lastSeenAt: null };

export function toStrategyResponse(featureName: string, strategy: FeatureStrategyDocument): FeatureStrategy & { id: string } {
  return {
    id: strategy.id,
    name: strategy.name,
    title: strategy.title,
    disabled: strategy.disabled,
    featureName,
    sortOrder: strategy.sortOrder,
    segments: strategy.segments,
    constraints: strategy.constraints,
    variants: strategy.variants,
    parameters: strategy.parameters,
  };
}

export function sortStrategies(strategies: FeatureStrategyDocument[]): FeatureStrategyDocument[] {
  return [...strategies].sort((a, b) => a.sortOrder - b.sortOrder || a.createdAt.getTime() - b.createdAt.getTime());
}

export function toFeatureEnvironmentResponse(doc: FeatureDocument, environment: EnvironmentView): FeatureEnvironment {
  const stored = environmentOf(doc, environment.name) ?? emptyEnvironment;
  const strategies = sortStrategies(stored.strategies).map((s) => toStrategyResponse(doc._id, s));
  return {
    name: environment.name,
    environment: environment.name,
    featureName: doc._id,
    type: environment.type,
    enabled: stored.enabled,
    sortOrder: environment.sortOrder,
    variantCount: stored.variants.length,
    strategies,
    variants: stored.variants,
    lastSeenAt: stored.lastSeenAt?.toISOString() ?? null,
    hasStrategies: strategies.length > 0,
    hasEnabledStrategies: strategies.some((s) => !s.disabled),
  };
}

function latest(dates: (Date | null)[]): Date | null {
  return dates.reduce<Date | null>((max, d) => (d && (!max || d > max) ? d : max), null);
}

/** A stored flag as the spec's Feature. */
export function toFeatureResponse(doc: FeatureDocument, context: FeatureResponseContext): Feature {
  const environments = context.environments.map((env) => toFeatureEnvironmentResponse(doc, env));
  const stage = doc.lifecycle.at(-1);
  const collaborators = [...doc.collaborators]
    .sort((a, b) => b.changedAt.getTime() - a.changedAt.getTime())
    .map(({ id, name, imageUrl }) => ({ id, name: name || "unknown", imageUrl }));
  return {
    name: doc._id,
    type: doc.type,
    description: doc.description,
    project: doc.project,
    enabled: environments.some((env) => env.enabled),
    stale: doc.stale,
    favorite: context.favorite ?? false,
    impressionData: doc.impressionData,
    archived: doc.archived,
    archivedAt: doc.archivedAt?.toISOString() ?? null,
    createdAt: doc.createdAt.toISOString(),
    createdBy: { ...doc.createdBy, name: doc.createdBy.name || "unknown" },
    lastSeenAt: latest(Object.values(doc.environments).map((env) => env.lastSeenAt))?.toISOString() ?? null,
    environments,
    tags: context.tags ?? [],
    children: context.children ?? [],
    ...(stage ? { lifecycle: { stage: stage.stage, enteredStageAt: stage.enteredStageAt.toISOString() } } : {}),
    dependencies: doc.dependencies.map((d) => ({ feature: d.feature, enabled: d.enabled, variants: d.variants })),
    collaborators: { users: collaborators },
    links: context.links ?? [],
  };
}

/** The flag without its environments: what metadata events carry and JSON patches see. */
export function metadataOf(doc: FeatureDocument): Record<string, unknown> {
  return {
    name: doc._id,
    project: doc.project,
    type: doc.type,
    description: doc.description,
    stale: doc.stale,
    impressionData: doc.impressionData,
    archived: doc.archived,
    createdAt: doc.createdAt.toISOString(),
  };
}
