import { describe, expect, it } from "vitest";
import type { Constraint } from "@vexil/contracts";
import { ValidationError } from "@vexil/errors";
import { assertValidConstraints, constraintProblems, createConstraintValidator } from "./constraint-validation.js";

const problemsOf = (constraint: Constraint) => constraintProblems(constraint, "constraints.0");

describe("constraintProblems", () => {
  it.each<Constraint>([
    { contextName: "userId", operator: "IN", values: ["a", "b"] },
    { contextName: "userId", operator: "NOT_IN", values: ["a"] },
    { contextName: "email", operator: "STR_ENDS_WITH", values: ["@example.com"], caseInsensitive: true },
    { contextName: "age", operator: "NUM_GTE", value: "18" },
    { contextName: "ratio", operator: "NUM_LT", value: "-0.5" },
    { contextName: "currentTime", operator: "DATE_AFTER", value: "2024-05-01T12:00:00.000Z" },
    { contextName: "currentTime", operator: "DATE_BEFORE", value: "2024-05-01T12:00:00+02:00" },
    { contextName: "currentTime", operator: "DATE_BEFORE", value: "2024-05-01" },
    { contextName: "version", operator: "SEMVER_GT", value: "1.2.3-beta.1" },
    { contextName: "email", operator: "REGEX", value: "^[a-z]+@example\\.com$" },
    { contextName: "remoteAddress", operator: "IN_CIDR", values: ["10.0.0.0/8", "192.168.1.1", "2001:db8::/32"] },
  ])("accepts %o", (constraint) => {
    expect(problemsOf(constraint)).toEqual([]);
  });

  it.each<[string, Constraint, string]>([
    ["IN without values", { contextName: "userId", operator: "IN", values: [] }, "constraints.0.values"],
    ["STR_CONTAINS with no values field", { contextName: "userId", operator: "STR_CONTAINS" }, "constraints.0.values"],
    ["NUM_EQ without value", { contextName: "age", operator: "NUM_EQ" }, "constraints.0.value"],
    ["NUM_GT with a word", { contextName: "age", operator: "NUM_GT", value: "abc" }, "constraints.0.value"],
    ["NUM_GT with a blank", { contextName: "age", operator: "NUM_GT", value: "  " }, "constraints.0.value"],
    ["NUM_LT with Infinity", { contextName: "age", operator: "NUM_LT", value: "Infinity" }, "constraints.0.value"],
    ["DATE_AFTER with a word", { contextName: "currentTime", operator: "DATE_AFTER", value: "tomorrow" }, "constraints.0.value"],
    ["DATE_BEFORE with a US date", { contextName: "currentTime", operator: "DATE_BEFORE", value: "05/01/2024" }, "constraints.0.value"],
    ["SEMVER_EQ with a range", { contextName: "version", operator: "SEMVER_EQ", value: "1.x" }, "constraints.0.value"],
    ["SEMVER_LT with a v prefix", { contextName: "version", operator: "SEMVER_LT", value: "v1.2.3" }, "constraints.0.value"],
    ["REGEX that does not compile", { contextName: "email", operator: "REGEX", value: "([a-z" }, "constraints.0.value"],
    ["REGEX with lookahead (not RE2)", { contextName: "email", operator: "REGEX", value: "a(?=b)" }, "constraints.0.value"],
    [
      "IN_CIDR with a bad range",
      { contextName: "remoteAddress", operator: "IN_CIDR", values: ["10.0.0.0/8", "10.0.0.0/33"] },
      "constraints.0.values.1",
    ],
    ["IN_CIDR with a short IPv4", { contextName: "remoteAddress", operator: "IN_CIDR", values: ["127.1"] }, "constraints.0.values.0"],
  ])("refuses %s, naming %s", (_case, constraint, path) => {
    const problems = problemsOf(constraint);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe(path);
  });

  it("checks values against the legal values of the context field", () => {
    const legalValues = new Map([["country", ["NO", "SE"]]]);
    expect(constraintProblems({ contextName: "country", operator: "IN", values: ["NO"] }, "c.0", legalValues)).toEqual([]);
    expect(constraintProblems({ contextName: "country", operator: "IN", values: ["NO", "DK"] }, "c.0", legalValues)).toEqual([
      { path: "c.0.values", message: '"DK" not among the legal values of context field country' },
    ]);
    expect(constraintProblems({ contextName: "other", operator: "IN", values: ["DK"] }, "c.0", legalValues)).toEqual([]);
  });
});

describe("assertValidConstraints", () => {
  it("throws one ValidationError naming every bad constraint by index", () => {
    const run = () =>
      assertValidConstraints(
        [
          { contextName: "userId", operator: "IN", values: ["a"] },
          { contextName: "age", operator: "NUM_EQ", value: "x" },
          { contextName: "version", operator: "SEMVER_EQ", value: "nope" },
        ],
        { path: "strategies.0.constraints" },
      );
    expect(run).toThrow(ValidationError);
    try {
      run();
    } catch (err) {
      const error = err as ValidationError;
      expect(error.message).toBe('Invalid strategies.0.constraints.1.value: "x" is not a number');
      expect(error.details?.map((d) => d.path)).toEqual(["strategies.0.constraints.1.value", "strategies.0.constraints.2.value"]);
    }
  });

  it("accepts an empty list", () => {
    expect(() => assertValidConstraints([])).not.toThrow();
  });
});

describe("createConstraintValidator", () => {
  it("reads the legal values of context fields", async () => {
    const validate = createConstraintValidator({ legalValues: async () => new Map([["plan", ["free", "pro"]]]) });
    await expect(validate([{ contextName: "plan", operator: "IN", values: ["pro"] }])).resolves.toBeUndefined();
    await expect(validate([{ contextName: "plan", operator: "IN", values: ["gold"] }])).rejects.toThrow(ValidationError);
  });
});
