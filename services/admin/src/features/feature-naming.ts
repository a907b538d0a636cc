import { ValidationError } from "@vexil/errors";
import type { FeatureNamingPattern } from "@vexil/contracts";

/** Unleash's rule for names used in paths: unchanged by URL encoding, and not `.` or `..`. */
export function isUrlFriendly(name: string): boolean {
  if (name.length === 0 || name === "." || name === "..") return false;
  try {
    return encodeURIComponent(name) === name;
  } catch {
    // An unpaired surrogate cannot be encoded at all.
    return false;
  }
}

export function assertUrlFriendly(name: string, field: string): void {
  if (!isUrlFriendly(name)) {
    throw new ValidationError(`"${field}" must be URL friendly. You provided "${name}".`, [
      { path: field, message: "Must be URL friendly: letters, digits and - _ . ~ only" },
    ]);
  }
}

/**
 * A project's naming pattern is a JavaScript regular expression without delimiters or flags; it is
 * anchored at both ends as Unleash does, so `^`/`$` in the pattern are optional.
 */
export function compileNamingPattern(pattern: string): RegExp | null {
  try {
    return new RegExp(`^${pattern}$`);
  } catch {
    return null;
  }
}

/** Checks a naming configuration: the pattern compiles, and the example (if any) matches it. */
export function assertValidFeatureNaming(naming: FeatureNamingPattern | null | undefined): void {
  if (!naming?.pattern) {
    if (naming?.example) {
      throw new ValidationError("featureNaming.example needs a pattern to match", [
        { path: "featureNaming.example", message: "An example is only allowed with a pattern" },
      ]);
    }
    return;
  }
  // Flag names are URL friendly, so a pattern allowing whitespace could never be met (Unleash refuses it too).
  if ([" ", "\\t", "\\s", "\\n", "\\r", "\\f", "\\v"].some((ws) => naming.pattern?.includes(ws))) {
    throw new ValidationError(`featureNaming.pattern "${naming.pattern}" contains whitespace; flag names cannot`, [
      { path: "featureNaming.pattern", message: "Must not contain whitespace" },
    ]);
  }
  const regex = compileNamingPattern(naming.pattern);
  if (!regex) {
    throw new ValidationError(`featureNaming.pattern "${naming.pattern}" is not a valid regular expression`, [
      { path: "featureNaming.pattern", message: "Not a valid JavaScript regular expression" },
    ]);
  }
  if (naming.example && !regex.test(naming.example)) {
    throw new ValidationError(`featureNaming.example "${naming.example}" does not match the pattern "${naming.pattern}"`, [
      { path: "featureNaming.example", message: "The example must match the pattern" },
    ]);
  }
}

/** Refuses a flag name that does not match the project's pattern, naming the pattern as Unleash does. */
export function assertMatchesNaming(name: string, naming: FeatureNamingPattern | null | undefined): void {
  if (!naming?.pattern) return;
  const regex = compileNamingPattern(naming.pattern);
  if (regex && regex.test(name)) return;
  const example = naming.example ? ` Here's an example of a name that does match the pattern: "${naming.example}".` : "";
  const description = naming.description ? ` The pattern's description is: "${naming.description}"` : "";
  throw new ValidationError(
    `The feature flag name "${name}" does not match the project's naming pattern: "${naming.pattern}".${example}${description}`,
    [{ path: "name", message: "The flag name does not match the pattern." }],
  );
}
