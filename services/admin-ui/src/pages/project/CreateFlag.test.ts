import { describe, expect, it } from "vitest";
import { namingFeedback } from "./CreateFlag.js";

describe("namingFeedback", () => {
  it("matches the whole name against the project's pattern, quiet on an empty name or a broken pattern", () => {
    expect(namingFeedback("shop-.+", "shop-cart")).toBeUndefined();
    expect(namingFeedback("shop-.+", "my-shop-cart")).toBe("Does not match the project's naming pattern shop-.+");
    expect(namingFeedback("shop-.+", "")).toBeUndefined();
    expect(namingFeedback("(", "x")).toBeUndefined();
  });
});
