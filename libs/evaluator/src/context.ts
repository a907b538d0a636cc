import type { Context } from "./types.js";

const TOP_LEVEL_FIELDS = new Set(["userId", "sessionId", "remoteAddress", "environment", "appName", "currentTime"]);

/** A context field as the SDKs see it: a standard field, else a property; always a string. */
export function resolveContextValue(context: Context, field: string): string | undefined {
  const topLevel = TOP_LEVEL_FIELDS.has(field) ? context[field as keyof Context] : undefined;
  // hasOwn: property bags come from request input, so inherited names must not resolve.
  const value = topLevel ?? (context.properties && Object.hasOwn(context.properties, field) ? context.properties[field] : undefined);
  return value === undefined || value === null ? undefined : String(value);
}
