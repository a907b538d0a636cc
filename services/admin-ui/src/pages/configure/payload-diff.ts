export interface FieldChange {
  field: string;
  before?: string;
  after?: string;
}

const shown = (value: unknown) => (value === undefined ? undefined : JSON.stringify(value));

/**
 * The top-level fields that differ between an event's data before and after, each as short JSON.
 * A payload that is not an object (or only one side) is one change of the whole value.
 */
export function payloadDiff(before: unknown, after: unknown): FieldChange[] {
  const isObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === "object" && value !== null && !Array.isArray(value);
  if (!isObject(before) || !isObject(after)) {
    if (before == null || after == null || shown(before) === shown(after)) return [];
    return [{ field: "value", before: shown(before), after: shown(after) }];
  }
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return fields
    .filter((field) => shown(before[field]) !== shown(after[field]))
    .map((field) => ({ field, before: shown(before[field]), after: shown(after[field]) }));
}
