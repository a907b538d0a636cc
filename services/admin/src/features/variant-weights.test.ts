import { describe, expect, it } from "vitest";
import { ValidationError } from "@vexil/errors";
import { spreadVariantWeights } from "./variant-weights.js";

const variable = (name: string) => ({ name, weight: 0, weightType: "variable" as const, stickiness: "default" });
const fix = (name: string, weight: number) => ({ name, weight, weightType: "fix" as const, stickiness: "default" });
const total = (vs: { weight: number }[]) => vs.reduce((s, v) => s + v.weight, 0);
const weights = (vs: { name: string; weight: number }[]) => vs.map((v) => [v.name, v.weight]);

describe("spreadVariantWeights", () => {
  it("gives the remainder to the first variable variants in the given order, then sorts by name (as Unleash 8.2.0 serves them)", () => {
    const result = spreadVariantWeights([variable("control"), variable("blue"), variable("green")]);
    expect(weights(result)).toEqual([
      ["blue", 333],
      ["control", 334],
      ["green", 333],
    ]);
    expect(total(result)).toBe(1000);
  });

  it("sorts fix and variable variants together by name, case-insensitively first as localeCompare does", () => {
    const given = [fix("zeta", 300), fix("Mid", 200), { ...variable("alpha"), weight: 500 }, variable("beta")];
    expect(weights(spreadVariantWeights(given))).toEqual([
      ["alpha", 250],
      ["beta", 250],
      ["Mid", 200],
      ["zeta", 300],
    ]);
  });

  it("keeps fix weights and spreads what is left", () => {
    const result = spreadVariantWeights([fix("f", 100), variable("x"), variable("y"), variable("z"), variable("w")]);
    expect(Object.fromEntries(weights(result))).toEqual({ f: 100, w: 225, x: 225, y: 225, z: 225 });
    const odd = spreadVariantWeights([fix("f", 1), variable("b"), variable("a")]);
    expect(weights(odd)).toEqual([
      ["a", 499],
      ["b", 500],
      ["f", 1],
    ]);
    expect(total(odd)).toBe(1000);
  });

  it("treats a missing weightType as variable", () => {
    expect(spreadVariantWeights([{ name: "only", weight: 3 }])).toEqual([{ name: "only", weight: 1000, weightType: "variable" }]);
  });

  it("accepts an empty list", () => {
    expect(spreadVariantWeights([])).toEqual([]);
  });

  it("refuses lists without a variable variant or with fix weights reaching 1000", () => {
    expect(() => spreadVariantWeights([fix("a", 500)])).toThrow(ValidationError);
    expect(() => spreadVariantWeights([fix("a", 600), fix("b", 400), variable("c")])).toThrow(/less than 1000/);
    expect(() => spreadVariantWeights([fix("a", 999), variable("c")])).not.toThrow();
  });
});
