import murmurhash3 from "murmurhash3js";
import { resolveContextValue } from "./context.js";
import type { Context, EvaluateOptions } from "./types.js";

const STRATEGY_SEED = 0;
const VARIANT_SEED = 86028157;

// Same hash, key and seeds as the Unleash SDKs, so a user lands in the same bucket everywhere.
function normalizedValue(id: string, groupId: string, normalizer: number, seed: number): number {
  return (murmurhash3.x86.hash32(`${groupId}:${id}`, seed) % normalizer) + 1;
}

/** 1..100, for rollout percentages. */
export function normalizedStrategyValue(id: string, groupId: string): number {
  return normalizedValue(id, groupId, 100, STRATEGY_SEED);
}

/** 1..normalizer, for picking a variant by cumulative weight. */
export function normalizedVariantValue(id: string, groupId: string, normalizer: number): number {
  return normalizedValue(id, groupId, normalizer, VARIANT_SEED);
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
