import type { CompiledFeature, CompiledStrategy } from "./compile.js";
import { matchingStrategy, variantOf } from "./evaluate.js";
import type { Context, EvaluateOptions, EvaluationResult } from "./types.js";
import { findOverride, type CompiledVariants } from "./variants.js";

/**
 * Why a feature answered as it did, in OpenFeature's resolution reasons: `DISABLED` (off in the
 * environment), `DEFAULT` (on, but nothing matched this context: the off answer), `STATIC` (the
 * same answer for every context), `SPLIT` (a rollout share or a weighted variant drew this
 * context) or `TARGETING_MATCH` (constraints, segments, lists, overrides or dependencies decided).
 */
export type Resolution = "DISABLED" | "DEFAULT" | "STATIC" | "SPLIT" | "TARGETING_MATCH";

/** How the variant was chosen: none or the only one there is, by an override, by weight, or the rest when no override matched. */
type VariantChoice = "fixed" | "override" | "drawn" | "rest";

function variantChoice(list: CompiledVariants | undefined, context: Context): VariantChoice {
  if (!list || list.totalWeight <= 0) return "fixed";
  if (findOverride(list, context)) return "override";
  const weighted = list.variants.filter((variant) => variant.weight > 0).length;
  if (weighted > 1) return "drawn";
  return list.overrides.length > 0 ? "rest" : "fixed";
}

/** The variant list a matching strategy draws from: its own when they weigh anything, else the feature's. */
function variantListOf(feature: CompiledFeature, strategy: CompiledStrategy): CompiledVariants | undefined {
  return strategy.variants && strategy.variants.totalWeight > 0 ? strategy.variants : feature.variants;
}

/** The feature's answer for a context, as `evaluateFeature` gives it, with the reason it was given. */
export function evaluateWithResolution(
  feature: CompiledFeature,
  context: Context,
  options: EvaluateOptions,
): { result: EvaluationResult; resolution: Resolution } {
  const strategy = matchingStrategy(feature, context, options);
  const result: EvaluationResult = {
    enabled: strategy !== undefined,
    variant: variantOf(feature, strategy, context, options),
    impressionData: feature.impressionData,
    exists: true,
  };
  if (!feature.enabled) return { result, resolution: "DISABLED" };
  if (!strategy) return { result, resolution: "DEFAULT" };
  const choice = variantChoice(variantListOf(feature, strategy), context);
  if (strategy.decides === "share" || choice === "drawn") return { result, resolution: "SPLIT" };
  const sameForEveryone =
    strategy === feature.strategies[0] && strategy.decides === "everyone" && feature.dependencies.length === 0 && choice === "fixed";
  return { result, resolution: sameForEveryone ? "STATIC" : "TARGETING_MATCH" };
}
