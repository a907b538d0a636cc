import { RE2JS } from "re2js";
import semver from "semver";
import { resolveContextValue } from "./context.js";
import { inRange, parseIp, parseIpRange } from "./ip.js";
import type { Constraint, Context, EvaluateOptions, Operator } from "./types.js";

/** A pre-compiled predicate over the request context. */
export type Check = (context: Context, options: EvaluateOptions) => boolean;

export const never: Check = () => false;

export function passesAll(checks: readonly Check[], context: Context, options: EvaluateOptions): boolean {
  for (const check of checks) {
    if (!check(context, options)) return false;
  }
  return true;
}

/**
 * Unknown operators and unparsable configured values (number, date, semver, regex, no valid CIDR)
 * compile to `never`, inverted or not: a broken constraint must not switch a flag on for everyone.
 * A missing or unparsable context value makes the operator false, which `inverted` then flips,
 * as the Unleash SDKs do.
 */
export function compileConstraint(constraint: Constraint | null | undefined): Check {
  if (!constraint) return never;
  const check = compileOperator(constraint);
  if (!check) return never;
  return constraint.inverted ? (context, options) => !check(context, options) : check;
}

function compileOperator(constraint: Constraint): Check | undefined {
  const field = constraint.contextName;
  // Narrowed to the contracts' operators for the cases below; any other string reaches `default`.
  const operator = constraint.operator as Operator;
  switch (operator) {
    case "IN":
    case "NOT_IN":
      return compileIn(field, cleanValues(constraint.values), operator === "IN");
    case "STR_STARTS_WITH":
    case "STR_ENDS_WITH":
    case "STR_CONTAINS":
      return compileString(field, operator, cleanValues(constraint.values), constraint.caseInsensitive === true);
    case "NUM_EQ":
    case "NUM_GT":
    case "NUM_GTE":
    case "NUM_LT":
    case "NUM_LTE":
      return compileNumber(field, operator, constraint.value);
    case "DATE_AFTER":
    case "DATE_BEFORE":
      return compileDate(operator, constraint.value);
    case "SEMVER_EQ":
    case "SEMVER_GT":
    case "SEMVER_GTE":
    case "SEMVER_LT":
    case "SEMVER_LTE":
      return compileSemver(field, operator, constraint.value);
    case "REGEX":
      return compileRegex(field, constraint.value, constraint.caseInsensitive === true);
    case "IN_CIDR":
      return compileCidr(field, cleanValues(constraint.values));
    default:
      // Every operator of the contracts' list has a case: one added there fails to compile here.
      operator satisfies never;
      return undefined;
  }
}

// As the SDKs: empty entries dropped, surrounding whitespace ignored.
function cleanValues(values: readonly string[] | undefined): string[] {
  return (values ?? []).filter((value) => !!value).map((value) => String(value).trim());
}

function compileIn(field: string, values: string[], wantIn: boolean): Check {
  const set = new Set(values);
  return (context) => {
    const value = resolveContextValue(context, field);
    return (value !== undefined && set.has(value)) === wantIn;
  };
}

const stringMatchers = {
  STR_STARTS_WITH: (text: string, needle: string) => text.startsWith(needle),
  STR_ENDS_WITH: (text: string, needle: string) => text.endsWith(needle),
  STR_CONTAINS: (text: string, needle: string) => text.includes(needle),
};

function compileString(field: string, operator: keyof typeof stringMatchers, values: string[], caseInsensitive: boolean): Check {
  const needles = caseInsensitive ? values.map((value) => value.toLocaleLowerCase()) : values;
  const matches = stringMatchers[operator];
  return (context) => {
    const raw = resolveContextValue(context, field);
    if (raw === undefined) return false;
    const text = caseInsensitive ? raw.toLocaleLowerCase() : raw;
    for (const needle of needles) {
      if (matches(text, needle)) return true;
    }
    return false;
  };
}

// Blank strings are not numbers, although Number('') is 0.
function parseNumber(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  const value = Number(text);
  return Number.isNaN(value) ? undefined : value;
}

const numberComparators = {
  NUM_EQ: (a: number, b: number) => a === b,
  NUM_GT: (a: number, b: number) => a > b,
  NUM_GTE: (a: number, b: number) => a >= b,
  NUM_LT: (a: number, b: number) => a < b,
  NUM_LTE: (a: number, b: number) => a <= b,
};

function compileNumber(field: string, operator: keyof typeof numberComparators, configured: string | undefined): Check | undefined {
  const target = parseNumber(configured === undefined ? undefined : String(configured));
  if (target === undefined) return undefined;
  const compare = numberComparators[operator];
  return (context) => {
    const value = parseNumber(resolveContextValue(context, field));
    return value !== undefined && compare(value, target);
  };
}

function currentTimeMillis(context: Context, options: EvaluateOptions): number {
  const { currentTime } = context;
  if (currentTime === undefined) return options.now();
  return currentTime instanceof Date ? currentTime.getTime() : Date.parse(currentTime);
}

// Date operators always compare the current time, whatever contextName says, as the SDKs do.
function compileDate(operator: "DATE_AFTER" | "DATE_BEFORE", configured: string | undefined): Check | undefined {
  const target = configured === undefined ? Number.NaN : Date.parse(configured);
  if (Number.isNaN(target)) return undefined;
  return operator === "DATE_AFTER"
    ? (context, options) => currentTimeMillis(context, options) > target
    : (context, options) => currentTimeMillis(context, options) < target;
}

// The SDKs reject a leading "v" although the semver package would accept it.
function parseSemver(text: string | undefined): semver.SemVer | undefined {
  if (!text || text.startsWith("v")) return undefined;
  return semver.parse(text) ?? undefined;
}

// A request's context version is compared by every semver constraint of every flag: parsed once
// while it stays the same. Versions are only compared, never changed, so one can be shared.
let lastVersionText: string | undefined;
let lastVersion: semver.SemVer | undefined;

function contextVersion(text: string | undefined): semver.SemVer | undefined {
  if (text !== lastVersionText) {
    lastVersion = parseSemver(text);
    lastVersionText = text;
  }
  return lastVersion;
}

const semverComparators = {
  SEMVER_EQ: (order: number) => order === 0,
  SEMVER_GT: (order: number) => order > 0,
  SEMVER_GTE: (order: number) => order >= 0,
  SEMVER_LT: (order: number) => order < 0,
  SEMVER_LTE: (order: number) => order <= 0,
};

function compileSemver(field: string, operator: keyof typeof semverComparators, configured: string | undefined): Check | undefined {
  const target = parseSemver(configured);
  if (!target) return undefined;
  const accepts = semverComparators[operator];
  return (context) => {
    const version = contextVersion(resolveContextValue(context, field));
    return version !== undefined && accepts(version.compare(target));
  };
}

// RE2 as the SDKs use it: linear time (no ReDoS from request input), no lookaround or backreferences.
function compileRegex(field: string, pattern: string | undefined, caseInsensitive: boolean): Check | undefined {
  if (pattern === undefined) return undefined;
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(pattern, caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
  } catch {
    return undefined;
  }
  return (context) => {
    const value = resolveContextValue(context, field);
    return value !== undefined && regex.test(value);
  };
}

function compileCidr(field: string, values: string[]): Check | undefined {
  const ranges = values.map(parseIpRange).filter((range) => range !== undefined);
  if (ranges.length === 0) return undefined;
  return (context) => {
    const text = resolveContextValue(context, field);
    const address = text === undefined ? undefined : parseIp(text);
    if (!address) return false;
    for (const range of ranges) {
      if (inRange(address, range)) return true;
    }
    return false;
  };
}
