import {
  compileSnapshot,
  compileStrategy,
  compileStrategyParts,
  ON_FOR_ALL,
  type CompiledFeature,
  type CompiledStrategy,
} from "./compile.js";
import type { Check } from "./constraints.js";
import { dependenciesMet, variantOf } from "./evaluate.js";
import type {
  ClientFeature,
  ClientFeaturesPayload,
  ClientStrategy,
  Constraint,
  Context,
  EvaluateOptions,
  FeatureEvaluation,
  Segment,
} from "./types.js";

export interface ConstraintOutcome {
  constraint: Constraint;
  result: boolean;
}

export interface SegmentOutcome {
  id: number;
  /** Undefined when the payload does not carry the segment: the strategy then never matches. */
  segment: Segment | undefined;
  result: boolean;
  constraints: ConstraintOutcome[];
}

export interface StrategyOutcome {
  strategy: ClientStrategy;
  /** A disabled strategy is skipped by the SDKs; its checks are still reported. */
  disabled: boolean;
  constraints: ConstraintOutcome[];
  segments: SegmentOutcome[];
  /** The strategy's own rule; undefined for a strategy this engine does not implement. */
  rule: boolean | undefined;
  /** Constraints, segments and rule all pass, and the strategy is enabled. */
  matches: boolean;
}

export interface FeatureExplanation extends FeatureEvaluation {
  feature: ClientFeature;
  dependenciesMet: boolean;
  /** Every strategy in payload order, disabled ones included. */
  strategies: StrategyOutcome[];
  /** Index in `strategies` of the one that switched the feature on; undefined when off or on without strategies. */
  decidedBy: number | undefined;
}

function outcomes(constraints: readonly Constraint[], checks: readonly Check[], context: Context, options: EvaluateOptions) {
  return checks.map((check, i) => ({ constraint: constraints[i]!, result: check(context, options) }));
}

/**
 * Why each feature is on or off for a context: every constraint, segment and strategy result,
 * the dependency outcome and the deciding strategy. Built from the same compiled checks, dependency
 * rule and variant selection that `evaluate` runs, so `enabled` and `variant` are the SDKs' answer.
 */
export function explainAll(payload: ClientFeaturesPayload, context: Context, options: EvaluateOptions): FeatureExplanation[] {
  const segments = new Map<number, Segment>();
  for (const segment of payload.segments ?? []) segments.set(segment.id, segment);
  const snapshot = compileSnapshot(payload);
  return payload.features.map((feature) => explainFeature(feature, snapshot.features.get(feature.name)!, segments, context, options));
}

function explainFeature(
  feature: ClientFeature,
  compiled: CompiledFeature,
  segments: ReadonlyMap<number, Segment>,
  context: Context,
  options: EvaluateOptions,
): FeatureExplanation {
  const raw = Array.isArray(feature.strategies) ? feature.strategies : undefined;
  const strategies: StrategyOutcome[] = [];
  const compiledStrategies: CompiledStrategy[] = [];
  for (const strategy of raw ?? []) {
    strategies.push(explainStrategy(strategy, feature.name, segments, context, options));
    compiledStrategies.push(compileStrategy(strategy, feature.name, segments));
  }
  const met = dependenciesMet(compiled, context, options);
  const decidedBy = compiled.enabled && met ? strategies.findIndex((outcome) => outcome.matches) : -1;
  // A malformed strategy list is off; an empty one is on for everyone, as `evaluate` has it.
  let deciding: CompiledStrategy | undefined = decidedBy >= 0 ? compiledStrategies[decidedBy] : undefined;
  if (raw?.length === 0 && compiled.enabled && met) deciding = ON_FOR_ALL;
  return {
    name: feature.name,
    feature,
    enabled: deciding !== undefined,
    variant: variantOf(compiled, deciding, context, options),
    impressionData: compiled.impressionData,
    exists: true,
    dependenciesMet: met,
    strategies,
    decidedBy: decidedBy >= 0 ? decidedBy : undefined,
  };
}

function explainStrategy(
  strategy: ClientStrategy,
  featureName: string,
  segments: ReadonlyMap<number, Segment>,
  context: Context,
  options: EvaluateOptions,
): StrategyOutcome {
  const parts = compileStrategyParts(strategy, featureName, segments);
  const constraints = outcomes(strategy.constraints ?? [], parts.constraints, context, options);
  const segmentOutcomes = parts.segments.map(({ id, segment, checks }) => {
    const results = outcomes(segment?.constraints ?? [], checks, context, options);
    return { id, segment, result: segment !== undefined && results.every((r) => r.result), constraints: results };
  });
  const disabled = strategy.disabled === true;
  const gated = constraints.every((r) => r.result) && segmentOutcomes.every((r) => r.result);
  const rule = parts.rule?.(context, options);
  return { strategy, disabled, constraints, segments: segmentOutcomes, rule, matches: !disabled && gated && rule === true };
}
