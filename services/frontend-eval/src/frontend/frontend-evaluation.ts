import { randomUUID } from "node:crypto";
import type { FrontendToggle } from "@vexil/contracts";
import {
  contextFreeResult,
  evaluateAll,
  evaluateFeature,
  type CompiledFeature,
  type Context,
  type EvaluateOptions,
  type VariantResult,
} from "@vexil/evaluator";
import type { EnvironmentSnapshot } from "../snapshots/environment-snapshot.js";
import { inScope, scopeKey, type FeatureScope } from "../snapshots/scope.js";

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

/** JSON text of the evaluator's shared (frozen) variant answers, such as "no variant". */
const sharedVariantJson = new WeakMap<VariantResult, string>();

function variantJson(variant: VariantResult): string {
  if (!Object.isFrozen(variant)) return JSON.stringify(variant);
  let json = sharedVariantJson.get(variant);
  if (json === undefined) sharedVariantJson.set(variant, (json = JSON.stringify(variant)));
  return json;
}

function toggleJson(name: string, variant: string, impressionData: boolean): string {
  return `{"name":${JSON.stringify(name)},"enabled":true,"variant":${variant},"impressionData":${impressionData}}`;
}

/** A flag whose answer depends on the context, with its toggle's JSON text around the variant. */
interface DependentToggle {
  feature: CompiledFeature;
  before: string;
  after: string;
}

/** What one flag adds to a scope's answer: its finished toggle, nothing (off or out of scope), or its evaluation. */
type FlagPiece = string | null | DependentToggle;

/**
 * Each compiled flag's piece per scope, kept across snapshots: a change recompiles only the flags
 * it touches (see `nextSnapshot`), so the next plan reuses every other flag's piece instead of
 * serialising 2,000 flags again before the first answer after a change. Bounded like the token
 * scopes that key it; the flags are weakly held and go with the snapshots that hold them.
 */
const piecesByScope = new Map<string, WeakMap<CompiledFeature, FlagPiece>>();
const maxScopesRemembered = 64;

function piecesFor(key: string): WeakMap<CompiledFeature, FlagPiece> {
  let pieces = piecesByScope.get(key);
  if (!pieces) {
    if (piecesByScope.size >= maxScopesRemembered) piecesByScope.clear();
    piecesByScope.set(key, (pieces = new WeakMap()));
  }
  return pieces;
}

/** A pure function of the compiled flag and the scope, so it can be kept as long as the flag is. */
function flagPiece(feature: CompiledFeature, scope: FeatureScope): FlagPiece {
  if (!inScope(scope, feature.name, feature.project)) return null;
  const constant = contextFreeResult(feature);
  if (constant) return constant.enabled ? toggleJson(feature.name, variantJson(constant.variant), constant.impressionData) : null;
  const [before, after] = toggleJson(feature.name, "\0", feature.impressionData).split("\0") as [string, string];
  return { feature, before, after };
}

/**
 * A scope's frontend answer prepared once per snapshot: the toggles that are the same for every
 * context as finished JSON text (runs of them joined into one string), and the flags that depend
 * on the context, to evaluate per request. Flags off for everyone are not in it at all.
 */
class FrontendPlan {
  constructor(readonly pieces: ReadonlyArray<string | DependentToggle>) {}

  static build(snapshot: EnvironmentSnapshot, scope: FeatureScope, key: string): FrontendPlan {
    const kept = piecesFor(key);
    const pieces: Array<string | DependentToggle> = [];
    let fixed: string[] = [];
    for (const feature of snapshot.compiled.features.values()) {
      let piece = kept.get(feature);
      if (piece === undefined) kept.set(feature, (piece = flagPiece(feature, scope)));
      if (piece === null) continue;
      if (typeof piece === "string") {
        fixed.push(piece);
        continue;
      }
      if (fixed.length > 0) pieces.push(fixed.join(","));
      fixed = [];
      pieces.push(piece);
    }
    if (fixed.length > 0) pieces.push(fixed.join(","));
    return new FrontendPlan(pieces);
  }
}

function planFor(snapshot: EnvironmentSnapshot, scope: FeatureScope): FrontendPlan {
  const scopeId = scopeKey(scope);
  const key = `frontend|${scopeId}`;
  const cached = snapshot.responses.get(key);
  if (cached instanceof FrontendPlan) return cached;
  const plan = FrontendPlan.build(snapshot, scope, scopeId);
  snapshot.keep(key, plan);
  return plan;
}

/**
 * `{"toggles":[...]}` as JSON text, the same text `JSON.stringify({ toggles: frontendToggles(...) })`
 * gives, from a plan kept per snapshot and scope: profiles showed serialising the toggles costing
 * over half as much as evaluating them, and only flags whose answer depends on the context are
 * evaluated per request (every flag is, in `frontendToggles`, so parents outside the scope are
 * seen; here a flag is evaluated with its parents through the compiled snapshot just the same).
 */
export function frontendTogglesJson(
  snapshot: EnvironmentSnapshot,
  context: Context,
  scope: FeatureScope,
  options: EvaluateOptions = liveOptions,
): string {
  const toggles: string[] = [];
  for (const piece of planFor(snapshot, scope).pieces) {
    if (typeof piece === "string") {
      toggles.push(piece);
      continue;
    }
    const result = evaluateFeature(piece.feature, context, options);
    if (result.enabled) toggles.push(piece.before + variantJson(result.variant) + piece.after);
  }
  return `{"toggles":[${toggles.join(",")}]}`;
}
