import type { Filter, UpdateFilter } from "./collection.js";

function isOperatorObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof Date) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((key) => key.startsWith("$"));
}

/** The fields an upsert copies from its filter: plain equalities and `$eq`, also inside `$and`. */
export function equalityFields<T>(filter: Filter<T>, into: Record<string, unknown> = {}): Record<string, unknown> {
  for (const [key, value] of Object.entries(filter)) {
    if (key === "$and" && Array.isArray(value)) {
      for (const clause of value) equalityFields(clause as Filter<T>, into);
    } else if (key.startsWith("$") || value instanceof RegExp) {
      continue;
    } else if (isOperatorObject(value)) {
      if ("$eq" in value) into[key] = value.$eq;
    } else {
      into[key] = value;
    }
  }
  return into;
}

/** Whether an upsert of `update` over `filter` determines the new document's `_id`. */
export function upsertNamesId<T>(filter: Filter<T>, update: UpdateFilter<T>): boolean {
  return "_id" in equalityFields(filter) || "_id" in (update.$setOnInsert ?? {}) || "_id" in (update.$set ?? {});
}
