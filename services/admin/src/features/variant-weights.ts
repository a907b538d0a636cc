import { VARIANT_WEIGHT_TOTAL, type FeatureVariant } from "@vexil/contracts";
import { ValidationError } from "@vexil/errors";

/**
 * Spreads what the `fix` variants leave of 1000 over the `variable` ones (a missing weightType
 * counts as variable), as Unleash does: each gets the floor of the even share, the first ones in
 * the given order one more until the remainder is used up. The list keeps the given order: the
 * SDKs hand out weight ranges in list order, so re-sorting would move users to other variants.
 */
export function spreadVariantWeights(variants: readonly FeatureVariant[]): FeatureVariant[] {
  if (variants.length === 0) return [];
  const variable = variants.filter((v) => (v.weightType ?? "variable") === "variable");
  const fixed = variants.filter((v) => v.weightType === "fix");
  if (variable.length === 0) throw new ValidationError("There must be at least one variant with weightType 'variable'");
  const fixedTotal = fixed.reduce((sum, v) => sum + v.weight, 0);
  if (fixedTotal >= VARIANT_WEIGHT_TOTAL) {
    throw new ValidationError(`The weights of 'fix' variants must sum to less than ${VARIANT_WEIGHT_TOTAL} (got ${fixedTotal})`);
  }
  const left = VARIANT_WEIGHT_TOTAL - fixedTotal;
  const share = Math.floor(left / variable.length);
  let remainder = left % variable.length;
  return variants.map((v) => {
    if (v.weightType === "fix") return v;
    const weight = share + (remainder > 0 ? 1 : 0);
    if (remainder > 0) remainder--;
    return { ...v, weightType: "variable" as const, weight };
  });
}
