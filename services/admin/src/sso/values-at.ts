/**
 * The strings at a dotted path in an identity provider's answer (`groups`, `$.groups`,
 * `attributes.memberOf`): a string is one value, an array gives its strings; anything else none.
 */
export function valuesAt(source: unknown, path: string): string[] {
  let value: unknown = source;
  for (const key of path
    .trim()
    .replace(/^\$\.?/, "")
    .split(".")
    .filter(Boolean)) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, key)) return [];
    value = (value as Record<string, unknown>)[key];
  }
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
