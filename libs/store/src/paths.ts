/** The value at a dotted path; through an array of subdocuments, the array of their values (as MongoDB indexes them). */
export function getPath(doc: unknown, path: string): unknown {
  let value: unknown = doc;
  for (const part of path.split(".")) {
    if (Array.isArray(value) && !/^\d+$/.test(part)) {
      value = value.flatMap((item: unknown) => {
        const inner = item !== null && typeof item === "object" ? (item as Record<string, unknown>)[part] : undefined;
        return inner === undefined ? [] : Array.isArray(inner) ? inner : [inner];
      });
      continue;
    }
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}
