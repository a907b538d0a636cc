import { resolveContextValue } from "./context.js";
import type { HashPrefix } from "./murmur.js";
import { variantBucket, variantGroup, variantStickinessValue } from "./stickiness.js";
import type { Context, EvaluateOptions, Variant } from "./types.js";

interface CompiledOverride {
  contextName: string;
  values: ReadonlySet<string>;
}

export interface CompiledVariants {
  group: HashPrefix;
  stickiness: string;
  totalWeight: number;
  // Weights as stored: no rescaling, no reordering, so buckets match the SDKs.
  variants: readonly Variant[];
  overrides: ReadonlyArray<{ variant: Variant; rules: readonly CompiledOverride[] }>;
}

export function compileVariants(
  variants: readonly Variant[] | null | undefined,
  groupId: string,
  fallbackStickiness: string,
): CompiledVariants | undefined {
  if (!variants || variants.length === 0) return undefined;
  return {
    group: variantGroup(groupId),
    // The first variant's stickiness speaks for the whole set.
    stickiness: variants[0].stickiness || fallbackStickiness,
    totalWeight: variants.reduce((sum, variant) => sum + variant.weight, 0),
    variants,
    overrides: variants
      .filter((variant) => variant.overrides && variant.overrides.length > 0)
      .map((variant) => ({
        variant,
        rules: (variant.overrides ?? []).map((override) => ({
          contextName: override.contextName,
          values: new Set(override.values),
        })),
      })),
  };
}

export function findOverride(compiled: CompiledVariants, context: Context): Variant | undefined {
  for (const { variant, rules } of compiled.overrides) {
    for (const rule of rules) {
      const value = resolveContextValue(context, rule.contextName);
      if (value !== undefined && rule.values.has(value)) return variant;
    }
  }
  return undefined;
}

/** The variant for this context, or undefined when the weights sum to nothing. */
export function selectVariant(compiled: CompiledVariants, context: Context, options: EvaluateOptions): Variant | undefined {
  if (compiled.totalWeight <= 0) return undefined;
  const override = findOverride(compiled, context);
  if (override) return override;
  const seed = variantStickinessValue(compiled.stickiness, context, options);
  const target = variantBucket(seed, compiled.group, compiled.totalWeight);
  let cumulative = 0;
  for (const variant of compiled.variants) {
    if (variant.weight === 0) continue;
    cumulative += variant.weight;
    if (cumulative >= target) return variant;
  }
  return undefined;
}
