import { createHash } from "node:crypto";
import type { OfrepEvaluationFailure, OfrepEvaluationSuccess } from "@vexil/contracts";
import { evaluateWithResolution, type Context } from "@vexil/evaluator";
import { liveOptions } from "../frontend/frontend-evaluation.js";
import type { EnvironmentSnapshot } from "../snapshots/environment-snapshot.js";
import { inScope, scopeKey, type FeatureScope } from "../snapshots/scope.js";

/** Context keys Unleash knows; every other scalar key becomes a custom property. */
const knownFields = new Set(["userId", "sessionId", "remoteAddress", "appName", "environment", "currentTime"]);

type ContextOutcome = { context: Context } | { errorCode: "PARSE_ERROR" | "INVALID_CONTEXT"; errorDetails: string };

/**
 * The Unleash context for an OFREP request body: `targetingKey` is the `userId` (unless `userId`
 * is given too), known fields go where the SDKs put them, other scalars become properties, and a
 * `properties` object of scalars is merged. A request without `context`, or a context without
 * `targetingKey` (an anonymous user), is evaluated as Unleash evaluates a context without a
 * `userId`. Anything else is refused with the protocol's code.
 */
export function ofrepContext(body: unknown, callerAddress: string | undefined): ContextOutcome {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { errorCode: "PARSE_ERROR", errorDetails: "The request body must be a JSON object" };
  }
  const input = (body as { context?: unknown }).context ?? {};
  if (typeof input !== "object" || Array.isArray(input)) {
    return { errorCode: "INVALID_CONTEXT", errorDetails: "context must be an object" };
  }
  const { targetingKey, properties: nested, ...fields } = input as Record<string, unknown>;
  if (targetingKey !== undefined && targetingKey !== null && typeof targetingKey !== "string") {
    return { errorCode: "INVALID_CONTEXT", errorDetails: "context.targetingKey must be a string" };
  }
  const context: Context = targetingKey ? { userId: targetingKey } : {};
  const properties: Record<string, string> = {};
  if (nested !== undefined) {
    if (typeof nested !== "object" || nested === null || Array.isArray(nested)) {
      return { errorCode: "INVALID_CONTEXT", errorDetails: "context.properties must be an object" };
    }
    Object.assign(fields, Object.fromEntries(Object.entries(nested).map(([key, value]) => [`properties.${key}`, value])));
  }
  for (const [key, value] of Object.entries(fields)) {
    if (value === null || value === undefined) continue;
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
      return { errorCode: "INVALID_CONTEXT", errorDetails: `context.${key} must be a string, number or boolean` };
    }
    if (key.startsWith("properties.")) properties[key.slice("properties.".length)] = String(value);
    else if (knownFields.has(key)) (context as Record<string, string>)[key] = String(value);
    else properties[key] = String(value);
  }
  context.remoteAddress ??= callerAddress;
  context.properties = properties;
  return { context };
}

/** A variant payload as an OpenFeature value: JSON objects as objects, numbers as numbers, the rest as text. */
function payloadValue(payload: { type: string; value: string }): OfrepEvaluationSuccess["value"] {
  if (payload.type === "json") {
    try {
      const parsed: unknown = JSON.parse(payload.value);
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // Stored payloads are validated; one that is not an object reads as its text.
    }
    return payload.value;
  }
  if (payload.type === "number" && payload.value.trim() !== "" && Number.isFinite(Number(payload.value))) return Number(payload.value);
  return payload.value;
}

/** One flag's OFREP answer, or undefined when the flag is unknown or outside the scope. */
export function evaluateOfrepFlag(
  snapshot: EnvironmentSnapshot,
  key: string,
  context: Context,
  scope: FeatureScope,
  options = liveOptions,
): OfrepEvaluationSuccess | OfrepEvaluationFailure | undefined {
  const feature = snapshot.compiled.features.get(key);
  if (!feature || !inScope(scope, key, feature.project)) return undefined;
  const { result, resolution: reason } = evaluateWithResolution(feature, context, options);
  const metadata = { enabled: result.enabled };
  if (result.enabled && result.variant.enabled) {
    const { name, payload } = result.variant;
    return { key, reason, variant: name, value: payload ? payloadValue(payload) : name, metadata };
  }
  return { key, reason, variant: result.enabled ? "enabled" : "disabled", value: result.enabled, metadata };
}

/** Every flag in scope, disabled ones included, in snapshot order. */
export function evaluateOfrepFlags(snapshot: EnvironmentSnapshot, context: Context, scope: FeatureScope, options = liveOptions) {
  const flags: Array<OfrepEvaluationSuccess | OfrepEvaluationFailure> = [];
  for (const key of snapshot.compiled.features.keys()) {
    const answer = evaluateOfrepFlag(snapshot, key, context, scope, options);
    if (answer) flags.push(answer);
  }
  return flags;
}

/**
 * The bulk answer's validator: it changes when the snapshot does (its revision) or the request
 * does (the context and the token's scope), so a client polling with the same context gets 304
 * until a flag changes.
 */
export function bulkEtag(snapshot: EnvironmentSnapshot, context: unknown, scope: FeatureScope): string {
  const digest = createHash("sha256")
    .update(JSON.stringify(context) ?? "")
    .update("\0")
    .update(scopeKey(scope))
    .digest("base64url")
    .slice(0, 22);
  return `"${snapshot.environment}:${snapshot.revision}:${digest}"`;
}
