import { compileConstraint, never, type Check } from "./constraints.js";
import { knownStrategyRule, strategyDecision, type StrategyDecision } from "./strategies.js";
import type { ClientFeature, ClientFeaturesPayload, ClientStrategy, Segment } from "./types.js";
import { compileVariants, type CompiledVariants } from "./variants.js";

export interface CompiledStrategy {
  // Constraints, then segment constraints, then the strategy rule: the SDKs' order, which
  // matters because the rule may draw a random number.
  checks: readonly Check[];
  variants: CompiledVariants | undefined;
  /** Matches every context: the `default` strategy without constraints or segments. */
  unconditional: boolean;
  /** How it decides who it matches (for reporting why a flag answered as it did, never for evaluating). */
  decides: StrategyDecision;
}

export interface CompiledDependency {
  // Undefined when the parent is missing or itself has parents: such a dependency is never met.
  parent: CompiledFeature | undefined;
  expectEnabled: boolean;
  variants: ReadonlySet<string> | undefined;
}

export interface CompiledFeature {
  name: string;
  enabled: boolean;
  impressionData: boolean;
  project: string | undefined;
  type: string | undefined;
  strategies: readonly CompiledStrategy[];
  variants: CompiledVariants | undefined;
  dependencies: readonly CompiledDependency[];
}

export interface CompiledSnapshot {
  // Insertion order is the payload's feature order.
  features: ReadonlyMap<string, CompiledFeature>;
}

// A feature with an empty strategy list is on for everyone, as in Unleash.
export const ON_FOR_ALL: CompiledStrategy = { checks: [], variants: undefined, unconditional: true, decides: "everyone" };

export function compileSnapshot(payload: ClientFeaturesPayload): CompiledSnapshot {
  const steps = compilingSnapshot(payload);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * `compileSnapshot` a flag at a time: the generator pauses after each flag it compiles or links,
 * so that a caller can spread tens of thousands of flags across turns of the event loop.
 */
export function* compilingSnapshot(payload: ClientFeaturesPayload): Generator<void, CompiledSnapshot, void> {
  const segments = new Map<number, Segment>();
  for (const segment of payload.segments ?? []) segments.set(segment.id, segment);

  const features = new Map<string, CompiledFeature>();
  const dependents = new Set<string>();
  for (const feature of payload.features) {
    features.set(feature.name, compileFeature(feature, segments));
    if (feature.dependencies && feature.dependencies.length > 0) dependents.add(feature.name);
    yield;
  }

  // Second pass: parents are resolved once every feature exists. Only one level is allowed.
  for (const feature of payload.features) {
    const compiled = features.get(feature.name);
    if (!compiled) continue;
    compiled.dependencies = (feature.dependencies ?? []).map((dependency) => {
      const parent = features.get(dependency.feature);
      return {
        parent: parent && !dependents.has(parent.name) ? parent : undefined,
        expectEnabled: dependency.enabled !== false,
        variants: dependency.variants && dependency.variants.length > 0 ? new Set(dependency.variants) : undefined,
      };
    });
    yield;
  }
  return { features };
}

function compileFeature(feature: ClientFeature, segments: ReadonlyMap<number, Segment>): CompiledFeature {
  return {
    name: feature.name,
    enabled: feature.enabled === true,
    impressionData: feature.impressionData === true,
    project: feature.project,
    type: feature.type,
    strategies: compileStrategies(feature, segments),
    variants: compileVariants(feature.variants, feature.name, "default"),
    dependencies: [],
  };
}

function compileStrategies(feature: ClientFeature, segments: ReadonlyMap<number, Segment>): CompiledStrategy[] {
  // A malformed strategy list turns the feature off rather than on for everyone.
  if (!Array.isArray(feature.strategies)) return [];
  if (feature.strategies.length === 0) return [ON_FOR_ALL];
  // Disabled strategies are dropped; if none is left the feature matches no one.
  return feature.strategies
    .filter((strategy) => strategy.disabled !== true)
    .map((strategy) => compileStrategy(strategy, feature.name, segments));
}

/** A strategy's checks kept apart, so a result can be explained; evaluation runs them in this order. */
export interface StrategyParts {
  constraints: Check[];
  // A segment the payload does not carry is undefined: the strategy then never matches, as in the SDKs.
  segments: Array<{ id: number; segment: Segment | undefined; checks: Check[] }>;
  // Undefined for a strategy this engine does not implement (a custom one): it never matches.
  rule: Check | undefined;
}

export function compileStrategyParts(strategy: ClientStrategy, featureName: string, segments: ReadonlyMap<number, Segment>): StrategyParts {
  return {
    constraints: (strategy.constraints ?? []).map(compileConstraint),
    segments: (strategy.segments ?? []).map((id) => {
      const segment = segments.get(id);
      return { id, segment, checks: (segment?.constraints ?? []).map(compileConstraint) };
    }),
    rule: knownStrategyRule(strategy, featureName),
  };
}

export function compileStrategy(strategy: ClientStrategy, featureName: string, segments: ReadonlyMap<number, Segment>): CompiledStrategy {
  const parts = compileStrategyParts(strategy, featureName, segments);
  const checks = [...parts.constraints];
  for (const segment of parts.segments) {
    if (!segment.segment) checks.push(never);
    else checks.push(...segment.checks);
  }
  checks.push(parts.rule ?? never);
  const parameters = strategy.parameters ?? {};
  return {
    checks,
    // The Unleash SDKs and server hash strategy variants with the strategy's groupId as written,
    // "undefined" when it has none (not the flag name, as flexibleRollout's own rollout does).
    variants: compileVariants(strategy.variants, `${parameters.groupId}`, parameters.stickiness || "default"),
    unconditional: strategy.name === "default" && checks.length === 1,
    decides: strategyDecision(strategy, parts.constraints.length + parts.segments.length > 0),
  };
}
