import { describe, expect, it } from "vitest";
import { ValidationError } from "@vexil/errors";
import { assertMatchesNaming, assertValidFeatureNaming, isUrlFriendly } from "./feature-naming.js";

describe("isUrlFriendly", () => {
  it.each(["checkout", "new.checkout_v2~x", "A-b"])("accepts %s", (name) => expect(isUrlFriendly(name)).toBe(true));
  it.each(["", "has space", "a/b", "ä", "a?b", ".", ".."])("refuses %j", (name) => expect(isUrlFriendly(name)).toBe(false));
});

describe("assertValidFeatureNaming", () => {
  it("accepts no pattern, a pattern alone, and a pattern with a matching example", () => {
    expect(() => assertValidFeatureNaming(null)).not.toThrow();
    expect(() => assertValidFeatureNaming({ pattern: null })).not.toThrow();
    expect(() => assertValidFeatureNaming({ pattern: "[a-z]+-\\d+" })).not.toThrow();
    expect(() => assertValidFeatureNaming({ pattern: "[a-z]+-\\d+", example: "web-1" })).not.toThrow();
  });

  it("refuses a pattern that does not compile, an example that does not match, an example without pattern", () => {
    expect(() => assertValidFeatureNaming({ pattern: "(" })).toThrow(ValidationError);
    expect(() => assertValidFeatureNaming({ pattern: "[a-z]+", example: "Web" })).toThrow(/does not match/);
    expect(() => assertValidFeatureNaming({ pattern: null, example: "x" })).toThrow(ValidationError);
    expect(() => assertValidFeatureNaming({ pattern: "a b" })).toThrow(/whitespace/);
    expect(() => assertValidFeatureNaming({ pattern: "a\\s+b" })).toThrow(/whitespace/);
  });

  it("matches the whole example, not a part of it", () => {
    expect(() => assertValidFeatureNaming({ pattern: "web", example: "my-web-flag" })).toThrow(ValidationError);
  });
});

describe("assertMatchesNaming", () => {
  const naming = { pattern: "shop-[a-z]+", example: "shop-cart", description: "shop prefix" };

  it("lets matching names through and ignores projects without a pattern", () => {
    expect(() => assertMatchesNaming("shop-cart", naming)).not.toThrow();
    expect(() => assertMatchesNaming("anything", null)).not.toThrow();
  });

  it("refuses other names with a message naming the pattern, example and description", () => {
    expect(() => assertMatchesNaming("cart", naming)).toThrow(
      'The feature flag name "cart" does not match the project\'s naming pattern: "shop-[a-z]+". Here\'s an example of a name that does match the pattern: "shop-cart". The pattern\'s description is: "shop prefix"',
    );
    expect(() => assertMatchesNaming("shop-cart2", naming)).toThrow(ValidationError);
  });
});
