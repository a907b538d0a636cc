import { VARIANT_WEIGHT_TOTAL } from "@vexil/contracts";
import { ValidationError } from "@vexil/errors";

/** What weight spreading reads of a feature or strategy variant (a missing weightType counts as variable). */
interface WeightedVariant {
  name: string;
  weight: number;
  weightType?: "variable" | "fix";
}

/** Unleash orders variant lists with `localeCompare`; Node resolves that to en-US whatever the process locale. */
const byName = new Intl.Collator("en-US").compare;

/**
 * The variant list exactly as Unleash 8.2.0 stores and serves it for the same admin call: what the
 * `fix` variants leave of 1000 is spread over the `variable` ones (each the floor of the even share,
 * the first ones in the GIVEN order one more until the remainder is used up), and the result is
 * sorted by name. The SDKs hand out weight ranges in list order, so any other order or spread would
 * bucket users into other variants than Unleash does for the same configuration.
 */
export function spreadVariantWeights<V extends WeightedVariant>(variants: readonly V[]): V[] {
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
  const spread = variants.map((v): V => {
    if (v.weightType === "fix") return v;
    const weight = share + (remainder > 0 ? 1 : 0);
    if (remainder > 0) remainder--;
    return { ...v, weightType: "variable", weight };
  });
  return spread.sort((a, b) => byName(a.name, b.name));
}
