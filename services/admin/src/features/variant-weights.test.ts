import { describe, expect, it } from "vitest";
import { ValidationError } from "@vexil/errors";
import { spreadVariantWeights } from "./variant-weights.js";

const variable = (name: string) => ({ name, weight: 0, weightType: "variable" as const, stickiness: "default" });
const fix = (name: string, weight: number) => ({ name, weight, weightType: "fix" as const, stickiness: "default" });
const total = (vs: { weight: number }[]) => vs.reduce((s, v) => s + v.weight, 0);

describe("spreadVariantWeights", () => {
  it("gives the remainder to the first variable variants and keeps the given order", () => {
    const result = spreadVariantWeights([variable("c"), variable("b"), variable("a")]);
    expect(result.map((v) => [v.name, v.weight])).toEqual([
      ["c", 334],
      ["b", 333],
      ["a", 333],
    ]);
    expect(total(result)).toBe(1000);
  });

  it("stores a list totalling 1000 exactly, in the given order (the SDKs assign ranges in list order)", () => {
    const given = [fix("zeta", 300), fix("mid", 200), { ...variable("alpha"), weight: 500 }];
    expect(spreadVariantWeights(given).map((v) => [v.name, v.weight])).toEqual([
      ["zeta", 300],
      ["mid", 200],
      ["alpha", 500],
    ]);
  });

  it("keeps fix weights and spreads what is left", () => {
    const result = spreadVariantWeights([fix("f", 100), variable("x"), variable("y"), variable("z"), variable("w")]);
    expect(Object.fromEntries(result.map((v) => [v.name, v.weight]))).toEqual({ f: 100, w: 225, x: 225, y: 225, z: 225 });
    const odd = spreadVariantWeights([fix("f", 1), variable("a"), variable("b")]);
    expect(odd.map((v) => v.weight)).toEqual([1, 500, 499]);
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
