import { resolveContextValue } from "./context.js";
import { hashPrefix, hashWithPrefix, type HashPrefix } from "./murmur.js";
import type { Context, EvaluateOptions } from "./types.js";

const STRATEGY_SEED = 0;
const VARIANT_SEED = 86028157;

// Same hash, key (`groupId:id`) and seeds as the Unleash SDKs, so a user lands in the same bucket
// everywhere. The `groupId:` part is hashed once, when a strategy or variant list is compiled.

/** A rollout's group, ready to hash sticky values with. */
export const strategyGroup = (groupId: string): HashPrefix => hashPrefix(`${groupId}:`, STRATEGY_SEED);

/** A variant list's group, ready to hash sticky values with. */
export const variantGroup = (groupId: string): HashPrefix => hashPrefix(`${groupId}:`, VARIANT_SEED);

/** 1..100, for rollout percentages. */
export function strategyBucket(id: string, group: HashPrefix): number {
  return (hashWithPrefix(group, id) % 100) + 1;
}

/** 1..normalizer, for picking a variant by cumulative weight. */
export function variantBucket(id: string, group: HashPrefix, normalizer: number): number {
  return (hashWithPrefix(group, id) % normalizer) + 1;
}

export function normalizedVariantValue(id: string, groupId: string, normalizer: number): number {
  return variantBucket(id, variantGroup(groupId), normalizer);
}

// The SDKs hash a random number rendered as a string when no sticky value exists.
function randomRolloutId(options: EvaluateOptions): string {
  return String(Math.round(options.random() * 10000) + 1);
}

function randomVariantSeed(options: EvaluateOptions): string {
  return String(Math.round(options.random() * 100000));
}

/** Value a flexibleRollout hashes; undefined when a custom stickiness field is missing. */
export function rolloutStickinessValue(stickiness: string, context: Context, options: EvaluateOptions): string | undefined {
  switch (stickiness) {
    case "default":
      return context.userId || context.sessionId || randomRolloutId(options);
    case "random":
      return randomRolloutId(options);
    default:
      return resolveContextValue(context, stickiness);
  }
}

/** Value variant selection hashes; variants never fail for lack of a field, they go random. */
export function variantStickinessValue(stickiness: string, context: Context, options: EvaluateOptions): string {
  if (stickiness !== "default") {
    return resolveContextValue(context, stickiness) || randomVariantSeed(options);
  }
  return context.userId || context.sessionId || context.remoteAddress || randomVariantSeed(options);
}
