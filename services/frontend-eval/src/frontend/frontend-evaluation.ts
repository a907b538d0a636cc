import { randomUUID } from "node:crypto";
import type { FrontendToggle } from "@vexil/contracts";
import { evaluateAll, type Context, type EvaluateOptions, type VariantResult } from "@vexil/evaluator";
import type { EnvironmentSnapshot } from "../snapshots/environment-snapshot.js";
import { inScope, type FeatureScope } from "../snapshots/scope.js";

/**
 * `currentTime` is not among them: as in Unleash, a caller's `currentTime` is just a property, so
 * date constraints see the server's clock and a browser cannot move it to see a flag early.
 */
const contextFields = new Set(["userId", "sessionId", "remoteAddress", "appName", "environment"]);

/**
 * The evaluation context from a frontend request, as Unleash builds it: the known fields, the
 * `properties` object, any other scalar field as a property, the caller's address when none is
 * given, and a random `sessionId` when none is given (so `default` stickiness still spreads
 * anonymous users).
 */
export function frontendContext(input: Record<string, unknown>, callerAddress: string | undefined): Context {
  const context: Context = {};
  const properties: Record<string, string> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined || value === null) continue;
    if (key === "properties") {
      if (typeof value === "object" && !Array.isArray(value)) {
        for (const [name, property] of Object.entries(value as Record<string, unknown>)) {
          if (isScalar(property)) properties[name] = String(property);
        }
      }
    } else if (contextFields.has(key)) {
      if (isScalar(value)) (context as Record<string, string>)[key] = String(value);
    } else if (isScalar(value)) {
      properties[key] = String(value);
    }
  }
  context.remoteAddress ??= callerAddress;
  context.sessionId ??= randomUUID();
  context.properties = properties;
  return context;
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

export const liveOptions: EvaluateOptions = { random: Math.random, now: Date.now };

/** The enabled flags in scope with their variants: the frontend API's `toggles`. */
export function frontendToggles(
  snapshot: EnvironmentSnapshot,
  context: Context,
  scope: FeatureScope,
  options: EvaluateOptions = liveOptions,
): FrontendToggle[] {
  const toggles: FrontendToggle[] = [];
  // Every flag is evaluated, in scope or not, so dependencies on parents outside the token's
  // projects still see their parents.
  for (const result of evaluateAll(snapshot.compiled, context, options)) {
    if (!result.enabled) continue;
    if (!inScope(scope, result.name, snapshot.features.get(result.name)?.project)) continue;
    // The evaluator types payloads loosely; they come from stored, validated variants.
    const variant = result.variant as FrontendToggle["variant"];
    toggles.push({ name: result.name, enabled: true, variant, impressionData: result.impressionData });
  }
  return toggles;
}

/** Per snapshot, the JSON text before and after each flag's variant in its toggle. */
const toggleFragments = new WeakMap<EnvironmentSnapshot, Map<string, readonly [string, string]>>();
/** JSON text of the evaluator's shared (frozen) variant answers, such as "no variant". */
const sharedVariantJson = new WeakMap<VariantResult, string>();

function variantJson(variant: VariantResult): string {
  if (!Object.isFrozen(variant)) return JSON.stringify(variant);
  let json = sharedVariantJson.get(variant);
  if (json === undefined) sharedVariantJson.set(variant, (json = JSON.stringify(variant)));
  return json;
}

/**
 * `{"toggles":[...]}` as JSON text, the same text `JSON.stringify({ toggles: frontendToggles(...) })`
 * gives, spliced from pieces kept per flag: profiles showed serialising the toggles costing over
 * half as much as evaluating them, while only the variant differs between users.
 */
export function frontendTogglesJson(
  snapshot: EnvironmentSnapshot,
  context: Context,
  scope: FeatureScope,
  options: EvaluateOptions = liveOptions,
): string {
  let fragments = toggleFragments.get(snapshot);
  if (!fragments) toggleFragments.set(snapshot, (fragments = new Map()));
  const toggles: string[] = [];
  for (const result of evaluateAll(snapshot.compiled, context, options)) {
    if (!result.enabled) continue;
    if (!inScope(scope, result.name, snapshot.features.get(result.name)?.project)) continue;
    let around = fragments.get(result.name);
    if (!around) {
      around = [`{"name":${JSON.stringify(result.name)},"enabled":true,"variant":`, `,"impressionData":${result.impressionData}}`];
      fragments.set(result.name, around);
    }
    toggles.push(around[0] + variantJson(result.variant) + around[1]);
  }
  return `{"toggles":[${toggles.join(",")}]}`;
}
