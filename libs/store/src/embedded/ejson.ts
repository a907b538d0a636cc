import { BSON } from "mongodb";

/**
 * EJSON for the embedded engine's journal and its in-memory copies, safe for user-chosen keys.
 * EJSON reads an object such as `{ "$date": ... }`, `{ "$oid": ... }` or `{ "$ref", "$id" }` as a
 * typed value, so a strategy parameter or signal payload key named like that would come back as a
 * Date, an ObjectId or a DBRef. Every key starting with `$` is written with one more `$` and read
 * back without it; the wrappers EJSON itself writes (for Dates and the like) are left alone.
 */
export function toEJSON(value: unknown): string {
  return BSON.EJSON.stringify(mapKeys(value, (key) => (key.startsWith("$") ? `$${key}` : key)));
}

export function fromEJSON<V>(text: string): V {
  const parsed = BSON.EJSON.parse(text);
  // Only a string starting with `$$` (a renamed key, or a value) puts `"$$` in the text: without one there is nothing to rename.
  return (text.includes('"$$') ? mapKeys(parsed, (key) => (key.startsWith("$$") ? key.slice(1) : key)) : parsed) as V;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/** A copy of `value` with the keys of every plain object renamed; other values are shared. */
function mapKeys(value: unknown, rename: (key: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item: unknown) => mapKeys(item, rename));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    setData(out, rename(key), mapKeys(item, rename));
  }
  return out;
}

/** Sets `key` as an own data property: a key named `__proto__` stays data instead of replacing the prototype. */
export function setData(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}
