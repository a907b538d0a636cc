import type { ParameterMatch } from "@vexil/contracts";
import { compileConstraint, type Check } from "@vexil/evaluator";

/** The context field a payload value is put under for the shared constraint operators. */
const field = "value";

/**
 * The value at a payload path, as the constraint operators read it: a string. A key that contains
 * dots wins over walking into nested objects; objects and arrays compare as their JSON.
 */
export function payloadValue(payload: unknown, path: string): string | undefined {
  const value = lookup(payload, path);
  if (value === undefined || value === null) return undefined;
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function lookup(payload: unknown, path: string): unknown {
  if (!isObject(payload)) return undefined;
  if (Object.hasOwn(payload, path)) return payload[path];
  let current: unknown = payload;
  for (const key of path.split(".")) {
    if (!isObject(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

export type PayloadFilter = (payload: unknown, now: () => number) => boolean;

/** Every filter must hold (an empty filter matches every signal), as Unleash's action sets do. */
export function compilePayloadFilter(filters: Record<string, ParameterMatch>): PayloadFilter {
  const checks: Array<[string, Check]> = Object.entries(filters).map(([path, match]) => [
    path,
    compileConstraint({ ...match, contextName: field }),
  ]);
  return (payload, now) =>
    checks.every(([path, check]) => check({ properties: { [field]: payloadValue(payload, path) } }, { now, random: Math.random }));
}
