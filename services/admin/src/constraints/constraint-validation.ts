import { takesValues, type Constraint, type ConstraintOperator } from "@vexil/contracts";
import { ValidationError, type ErrorDetail } from "@vexil/errors";
import ipaddr from "ipaddr.js";
import { RE2JS } from "re2js";
import semver from "semver";
import { z } from "zod";

/**
 * Per-operator checks of constraint values, shared by strategies, segments and change requests.
 * They follow what the evaluator (and the Unleash SDKs) can use: a value they could not parse would
 * make the constraint silently false, so it is refused when written instead.
 */

const numberOperators = new Set<ConstraintOperator>(["NUM_EQ", "NUM_GT", "NUM_GTE", "NUM_LT", "NUM_LTE"]);
const dateOperators = new Set<ConstraintOperator>(["DATE_AFTER", "DATE_BEFORE"]);
const semverOperators = new Set<ConstraintOperator>(["SEMVER_EQ", "SEMVER_GT", "SEMVER_GTE", "SEMVER_LT", "SEMVER_LTE"]);

/** Context fields with legal values restrict what constraints on them may hold, as in Unleash. */
export type LegalValues = ReadonlyMap<string, readonly string[]>;

export interface ConstraintCheckOptions {
  /** Where the list sits in the request, for error paths: `constraints`, `strategies.2.constraints`. */
  path?: string;
  legalValues?: LegalValues;
}

const isoDate = z.union([z.string().datetime({ offset: true }), z.string().date()]);

function isNumber(text: string): boolean {
  return text.trim() !== "" && Number.isFinite(Number(text));
}

/** The SDKs reject a leading `v` that the semver package would accept. */
function isSemver(text: string): boolean {
  return !text.startsWith("v") && semver.valid(text) !== null;
}

/** A dotted-quad IPv4 or an IPv6 address, optionally with a prefix length: what the evaluator matches. */
function isIpOrCidr(text: string): boolean {
  const [address = "", bits, extra] = text.trim().split("/");
  if (extra !== undefined) return false;
  const maxBits = ipaddr.IPv4.isValidFourPartDecimal(address) ? 32 : ipaddr.IPv6.isValid(address) ? 128 : 0;
  if (maxBits === 0) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
}

function compilesAsRe2(pattern: string, caseInsensitive: boolean): boolean {
  try {
    RE2JS.compile(pattern, caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
    return true;
  } catch {
    return false;
  }
}

/** What is wrong with one constraint; empty when it is valid. */
export function constraintProblems(constraint: Constraint, path: string, legalValues?: LegalValues): ErrorDetail[] {
  const { operator } = constraint;
  const problems: ErrorDetail[] = [];
  const problem = (field: string, message: string) => problems.push({ path: `${path}.${field}`, message });

  if (takesValues(operator)) {
    const values = constraint.values ?? [];
    if (values.length === 0) problem("values", `${operator} needs at least one entry in values`);
    if (operator === "IN_CIDR") {
      values.forEach((value, i) => {
        if (!isIpOrCidr(value)) problem(`values.${i}`, `"${value}" is not an IP address or CIDR range`);
      });
    }
  } else {
    const value = constraint.value;
    if (value === undefined || value === "") {
      problem("value", `${operator} needs a value`);
    } else if (numberOperators.has(operator) && !isNumber(value)) {
      problem("value", `"${value}" is not a number`);
    } else if (dateOperators.has(operator) && !isoDate.safeParse(value).success) {
      problem("value", `"${value}" is not an ISO 8601 date`);
    } else if (semverOperators.has(operator) && !isSemver(value)) {
      problem("value", `"${value}" is not a valid semantic version (such as 1.2.3)`);
    } else if (operator === "REGEX" && !compilesAsRe2(value, constraint.caseInsensitive === true)) {
      problem("value", `"${value}" is not a valid regular expression (RE2 syntax)`);
    }
  }

  const legal = legalValues?.get(constraint.contextName);
  if (legal && legal.length > 0 && problems.length === 0) {
    const given = takesValues(operator) ? (constraint.values ?? []) : [constraint.value ?? ""];
    const illegal = given.filter((value) => !legal.includes(value));
    if (illegal.length > 0) {
      problem(
        takesValues(operator) ? "values" : "value",
        `${illegal.map((v) => `"${v}"`).join(", ")} not among the legal values of context field ${constraint.contextName}`,
      );
    }
  }
  return problems;
}

/** Throws one ValidationError naming every invalid constraint field (`constraints.1.value`). */
export function assertValidConstraints(constraints: readonly Constraint[], options: ConstraintCheckOptions = {}): void {
  const path = options.path ?? "constraints";
  const problems = constraints.flatMap((constraint, i) => constraintProblems(constraint, `${path}.${i}`, options.legalValues));
  const first = problems[0];
  if (first) throw new ValidationError(`Invalid ${first.path}: ${first.message}`, problems);
}

/**
 * The usual entry point for services: checks constraints against the operators' rules and the
 * legal values currently defined on context fields.
 */
export type ConstraintValidator = (constraints: readonly Constraint[], path?: string) => Promise<void>;

export function createConstraintValidator(context: { legalValues(): Promise<LegalValues> }): ConstraintValidator {
  return async (constraints, path) => {
    if (constraints.length === 0) return;
    assertValidConstraints(constraints, { path, legalValues: await context.legalValues() });
  };
}
