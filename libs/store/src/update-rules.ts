import { refusals } from "./errors.js";

/**
 * The shapes of update MongoDB refuses before touching a document, checked by the embedded engine
 * so that it refuses them too, with MongoDB's errors (the MongoDB engine leaves them to the driver
 * and the server, which say the same).
 */

/** The update operators MongoDB knows. */
const operators = new Set([
  "$set",
  "$unset",
  "$inc",
  "$mul",
  "$min",
  "$max",
  "$push",
  "$pull",
  "$pullAll",
  "$addToSet",
  "$pop",
  "$rename",
  "$setOnInsert",
  "$currentDate",
  "$bit",
]);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof Date);
}

/** Refuses a key BSON cannot hold: keys end at the first NUL. */
export function checkKey(key: string): void {
  if (key.includes("\0")) throw refusals.nullInKey(key);
}

function checkPath(path: string): void {
  checkKey(path);
  if (path === "") throw refusals.emptyPath();
  if (path.split(".").some((part) => part === "")) throw refusals.emptyFieldName(path);
}

/** The point where two paths overlap (one is the other or its ancestor), if they do. */
function overlap(a: string, b: string): string | undefined {
  if (a === b) return a;
  if (a.startsWith(`${b}.`)) return b;
  if (b.startsWith(`${a}.`)) return a;
  return undefined;
}

/**
 * Refuses what the driver and the server refuse of an update document: no operators (the driver
 * looks at the first key only, as here), an unknown operator or one whose operand is not an
 * object, an empty path or path segment, a NUL in a path, and two operators (`$setOnInsert`
 * included, upsert or not) on the same path or on a path and its ancestor.
 */
export function checkUpdate(update: unknown): void {
  const keys = isPlainObject(update) ? Object.keys(update) : [];
  if (keys.length === 0 || !keys[0]!.startsWith("$")) throw refusals.noOperators();
  const seen: string[] = [];
  const add = (path: string) => {
    checkPath(path);
    for (const earlier of seen) {
      const at = overlap(path, earlier);
      if (at !== undefined) throw refusals.conflictingOperators(path, at);
    }
    seen.push(path);
  };
  for (const [operator, operand] of Object.entries(update as Record<string, unknown>)) {
    if (!operators.has(operator)) throw refusals.unknownModifier(operator);
    if (!isPlainObject(operand)) throw refusals.notAnObject(operator);
    for (const [path, value] of Object.entries(operand)) {
      add(path);
      if (operator === "$rename" && typeof value === "string") add(value);
    }
  }
}

/**
 * Refuses a path whose first field starts with `$` in an update of an existing document (an
 * upsert that inserts may create one, as MongoDB 5.0 allows).
 */
export function checkModifiedPaths(update: Record<string, unknown>): void {
  for (const [operator, operand] of Object.entries(update)) {
    if (operator === "$setOnInsert" || !isPlainObject(operand)) continue;
    for (const path of Object.keys(operand)) {
      const first = path.split(".")[0]!;
      if (first.startsWith("$")) throw refusals.dollarField(first, path);
    }
  }
}

/**
 * Refuses a replacement the driver or server would: operators (the driver looks at the first key)
 * or any other top-level field starting with `$`.
 */
export function checkReplacement(replacement: Record<string, unknown>): void {
  const keys = Object.keys(replacement);
  if (keys[0]?.startsWith("$")) throw refusals.operatorsInReplacement();
  const dollar = keys.find((key) => key.startsWith("$"));
  if (dollar !== undefined) throw refusals.dollarField(dollar, dollar);
}
