import type { CompiledFeature, CompiledSnapshot, CompiledStrategy } from "./compile.js";
import { passesAll } from "./constraints.js";
import type { Context, EvaluateOptions, EvaluationResult, FeatureEvaluation, Variant, VariantResult } from "./types.js";
import { selectVariant, type CompiledVariants } from "./variants.js";

// Shared and frozen: the common answers allocate nothing.
const DISABLED_FEATURE: VariantResult = Object.freeze({
  name: "disabled",
  enabled: false,
  feature_enabled: false,
  featureEnabled: false,
});
const NO_VARIANT: VariantResult = Object.freeze({
  name: "disabled",
  enabled: false,
  feature_enabled: true,
  featureEnabled: true,
});
const UNKNOWN_FEATURE: EvaluationResult = Object.freeze({
  enabled: false,
  variant: DISABLED_FEATURE,
  impressionData: false,
  exists: false,
});

/** The strategy that switches the feature on for this context, or undefined when it is off. */
export function matchingStrategy(feature: CompiledFeature, context: Context, options: EvaluateOptions): CompiledStrategy | undefined {
  if (!feature.enabled || !dependenciesMet(feature, context, options)) return undefined;
  for (const strategy of feature.strategies) {
    if (passesAll(strategy.checks, context, options)) return strategy;
  }
  return undefined;
}

export function dependenciesMet(feature: CompiledFeature, context: Context, options: EvaluateOptions): boolean {
  for (const { parent, expectEnabled, variants } of feature.dependencies) {
    if (!parent) return false;
    if (!expectEnabled) {
      if (matchingStrategy(parent, context, options)) return false;
    } else if (variants) {
      const variant = variantOf(parent, matchingStrategy(parent, context, options), context, options);
      if (!variant.feature_enabled || !variants.has(variant.name)) return false;
    } else if (!matchingStrategy(parent, context, options)) {
      return false;
    }
  }
  return true;
}

// Variants of the matching strategy win; the feature's own variants are the fallback.
export function variantOf(
  feature: CompiledFeature,
  strategy: CompiledStrategy | undefined,
  context: Context,
  options: EvaluateOptions,
): VariantResult {
  if (!strategy) return DISABLED_FEATURE;
  const variant =
    (strategy.variants && selectVariant(strategy.variants, context, options)) ??
    (feature.variants && selectVariant(feature.variants, context, options));
  return variant ? variantResult(variant) : NO_VARIANT;
}

/** One shared, frozen answer per variant of the compiled snapshot: callers can keep its serialised form. */
const variantResults = new WeakMap<Variant, VariantResult>();

function variantResult(variant: Variant): VariantResult {
  let result = variantResults.get(variant);
  if (!result) {
    const answer: VariantResult = { name: variant.name, enabled: true, feature_enabled: true, featureEnabled: true };
    if (variant.payload) answer.payload = variant.payload;
    result = Object.freeze(answer);
    variantResults.set(variant, result);
  }
  return result;
}

/** One compiled feature's answer for a context. */
export function evaluateFeature(feature: CompiledFeature, context: Context, options: EvaluateOptions): EvaluationResult {
  const strategy = matchingStrategy(feature, context, options);
  return {
    enabled: strategy !== undefined,
    variant: variantOf(feature, strategy, context, options),
    impressionData: feature.impressionData,
    exists: true,
  };
}

export function evaluate(snapshot: CompiledSnapshot, featureName: string, context: Context, options: EvaluateOptions): EvaluationResult {
  const feature = snapshot.features.get(featureName);
  return feature ? evaluateFeature(feature, context, options) : UNKNOWN_FEATURE;
}

/** Every feature in payload order, enabled or not; callers filter. */
export function evaluateAll(snapshot: CompiledSnapshot, context: Context, options: EvaluateOptions): FeatureEvaluation[] {
  const results: FeatureEvaluation[] = [];
  for (const feature of snapshot.features.values()) {
    results.push({ name: feature.name, ...evaluateFeature(feature, context, options) });
  }
  return results;
}

/** What selecting from these variants gives whatever the context: none, always the same one, or it depends. */
function fixedVariant(compiled: CompiledVariants | undefined): Variant | null | "depends" {
  if (!compiled || compiled.totalWeight <= 0) return null;
  if (compiled.overrides.length > 0) return "depends";
  const weighted = compiled.variants.filter((variant) => variant.weight !== 0);
  return weighted.length === 1 && weighted[0]!.weight > 0 ? weighted[0]! : "depends";
}

/**
 * A feature's answer when no context can change it, else undefined: a feature that is off (or has
 * no strategy left), or one without dependencies whose first strategy matches everyone and whose
 * variant is fixed (none, or a single weighted one). Equal to `evaluateFeature` for every context.
 */
export function contextFreeResult(feature: CompiledFeature): EvaluationResult | undefined {
  if (!feature.enabled || feature.strategies.length === 0) {
    return { enabled: false, variant: DISABLED_FEATURE, impressionData: feature.impressionData, exists: true };
  }
  const first = feature.strategies[0]!;
  if (feature.dependencies.length > 0 || !first.unconditional) return undefined;
  // The strategy's variants win; the feature's are the fallback when the strategy's give none.
  let variant = fixedVariant(first.variants);
  if (variant === null) variant = fixedVariant(feature.variants);
  if (variant === "depends") return undefined;
  return { enabled: true, variant: variant ? variantResult(variant) : NO_VARIANT, impressionData: feature.impressionData, exists: true };
}
