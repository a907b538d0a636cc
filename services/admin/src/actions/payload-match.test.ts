import { describe, expect, it } from "vitest";
import { compilePayloadFilter, payloadValue } from "./payload-match.js";

const now = () => Date.parse("2024-06-01T00:00:00Z");

describe("payload values", () => {
  it("walk into nested objects, prefer a key that contains dots, and read objects as JSON", () => {
    const payload = { alert: { status: "firing", count: 3, tags: ["a"] }, "alert.status": "literal" };
    expect(payloadValue(payload, "alert.status")).toBe("literal");
    expect(payloadValue({ alert: { status: "firing" } }, "alert.status")).toBe("firing");
    expect(payloadValue(payload, "alert.count")).toBe("3");
    expect(payloadValue(payload, "alert.tags")).toBe('["a"]');
    expect(payloadValue(payload, "alert.missing")).toBeUndefined();
    expect(payloadValue("not an object", "alert")).toBeUndefined();
    expect(payloadValue({ a: null }, "a")).toBeUndefined();
  });

  it("do not resolve inherited properties", () => {
    expect(payloadValue({}, "constructor")).toBeUndefined();
    expect(payloadValue({ a: {} }, "a.__proto__")).toBeUndefined();
  });
});

describe("payload filters", () => {
  it("match every signal when empty", () => {
    expect(compilePayloadFilter({})(undefined, now)).toBe(true);
  });

  it("need every filter to hold, with the constraint operators", () => {
    const filter = compilePayloadFilter({
      "alert.status": { operator: "IN", values: ["firing"] },
      "alert.errorRate": { operator: "NUM_GT", value: "5" },
      service: { operator: "STR_STARTS_WITH", values: ["CHECKOUT"], caseInsensitive: true },
    });
    expect(filter({ alert: { status: "firing", errorRate: 7.5 }, service: "checkout-api" }, now)).toBe(true);
    expect(filter({ alert: { status: "firing", errorRate: 2 }, service: "checkout-api" }, now)).toBe(false);
    expect(filter({ alert: { status: "resolved", errorRate: 9 }, service: "checkout-api" }, now)).toBe(false);
    expect(filter({ alert: { status: "firing", errorRate: 9 } }, now)).toBe(false);
  });

  it("honour inverted, also for a missing value", () => {
    const filter = compilePayloadFilter({ env: { operator: "IN", values: ["test"], inverted: true } });
    expect(filter({ env: "prod" }, now)).toBe(true);
    expect(filter({ env: "test" }, now)).toBe(false);
    expect(filter({}, now)).toBe(true);
  });

  it("never match on an unparsable configured value", () => {
    expect(compilePayloadFilter({ n: { operator: "NUM_EQ", value: "many" } })({ n: 1 }, now)).toBe(false);
  });
});
