import { describe, expect, it } from "vitest";
import { compileConstraint } from "./constraints.js";
import type { Constraint, Context, EvaluateOptions } from "./types.js";

const NOW = Date.parse("2024-06-01T12:00:00Z");
const options: EvaluateOptions = { random: () => 0.5, now: () => NOW };

function check(constraint: Constraint, context: Context): boolean {
  return compileConstraint(constraint)(context, options);
}

const withProp = (value: string | null): Context => ({ properties: { field: value } });

describe("unparsable configured values never match, inverted or not", () => {
  it.each([
    { operator: "NUM_GT", value: "twelve" },
    { operator: "NUM_EQ", value: "" },
    { operator: "DATE_AFTER", value: "yesterday-ish" },
    { operator: "SEMVER_GT", value: "one.two" },
    { operator: "SEMVER_EQ", value: "v1.2.3" },
    { operator: "REGEX", value: "(unclosed" },
    { operator: "REGEX", value: "^(a)\\1$" },
    { operator: "IN_CIDR", values: ["10.0.0.0/33", "nonsense"] },
    { operator: "NOT_A_REAL_OPERATOR", values: ["x"] },
  ])("$operator $value$values", (partial) => {
    for (const inverted of [false, true]) {
      const constraint = { contextName: "field", inverted, ...partial } as Constraint;
      expect(check(constraint, withProp("12"))).toBe(false);
      expect(check(constraint, {})).toBe(false);
    }
  });
});

describe("unparsable or missing context values make the operator false, and inverted flips it", () => {
  it.each([
    { operator: "NUM_LT", value: "10", bad: "ten" },
    { operator: "NUM_EQ", value: "0", bad: "  " },
    { operator: "SEMVER_LT", value: "2.0.0", bad: "v1.0.0" },
    { operator: "IN_CIDR", values: ["10.0.0.0/8"], bad: "10.1" },
    { operator: "STR_CONTAINS", values: ["a"], bad: null },
  ])("$operator with $bad", ({ bad, ...partial }) => {
    const constraint = { contextName: "field", ...partial } as Constraint;
    expect(check(constraint, withProp(bad))).toBe(false);
    expect(check({ ...constraint, inverted: true }, withProp(bad))).toBe(true);
  });

  it("reads a blank number as no number, not zero", () => {
    expect(check({ contextName: "field", operator: "NUM_EQ", value: "0" }, withProp(""))).toBe(false);
  });
});

describe("caseInsensitive with inverted", () => {
  const base: Constraint = { contextName: "email", operator: "STR_ENDS_WITH", values: ["@Example.COM"] };

  it.each([
    { caseInsensitive: false, inverted: false, email: "a@example.com", expected: false },
    { caseInsensitive: true, inverted: false, email: "a@example.com", expected: true },
    { caseInsensitive: true, inverted: true, email: "a@EXAMPLE.com", expected: false },
    { caseInsensitive: true, inverted: true, email: "a@example.org", expected: true },
    { caseInsensitive: false, inverted: true, email: "a@example.com", expected: true },
  ])("ci=$caseInsensitive inverted=$inverted $email", ({ caseInsensitive, inverted, email, expected }) => {
    expect(check({ ...base, caseInsensitive, inverted }, { properties: { email } })).toBe(expected);
  });

  it("applies to REGEX too", () => {
    const regex: Constraint = { contextName: "userId", operator: "REGEX", value: "^ab$", caseInsensitive: true };
    expect(check(regex, { userId: "AB" })).toBe(true);
    expect(check({ ...regex, inverted: true }, { userId: "AB" })).toBe(false);
  });
});

describe("dates", () => {
  const after: Constraint = { contextName: "currentTime", operator: "DATE_AFTER", value: "2024-01-01T00:00:00Z" };

  it("falls back to the injected clock when the context has no currentTime", () => {
    expect(check(after, {})).toBe(true);
    expect(compileConstraint(after)({}, { ...options, now: () => Date.parse("2023-01-01T00:00:00Z") })).toBe(false);
  });

  it("accepts a Date and rejects an unparsable currentTime", () => {
    expect(check(after, { currentTime: new Date("2023-12-31T23:59:59Z") })).toBe(false);
    expect(check(after, { currentTime: "not a date" })).toBe(false);
  });
});

describe("context resolution", () => {
  it("does not resolve inherited property names", () => {
    const constraint: Constraint = { contextName: "toString", operator: "STR_CONTAINS", values: ["function"] };
    expect(check(constraint, { properties: {} })).toBe(false);
  });

  it("stringifies non-string property values", () => {
    expect(check({ contextName: "age", operator: "NUM_GTE", value: "18" }, { properties: { age: 21 } })).toBe(true);
    expect(check({ contextName: "beta", operator: "IN", values: ["true"] }, { properties: { beta: true } })).toBe(true);
  });

  it("matches IPv4-mapped IPv6 addresses against IPv4 ranges", () => {
    const cidr: Constraint = { contextName: "remoteAddress", operator: "IN_CIDR", values: ["10.0.0.0/8"] };
    expect(check(cidr, { remoteAddress: "::ffff:10.2.3.4" })).toBe(true);
    expect(check(cidr, { remoteAddress: "2001:db8::1" })).toBe(false);
  });
});
