import { describe, expect, it } from "vitest";
import { retryDelay } from "./backoff.js";

describe("retryDelay", () => {
  const settings = { baseMs: 100, maxMs: 1000 };
  it("doubles per failed attempt, with half of it random", () => {
    expect(retryDelay(1, settings, () => 0)).toBe(50);
    expect(retryDelay(1, settings, () => 1)).toBe(100);
    expect(retryDelay(3, settings, () => 0.5)).toBe(300);
  });
  it("stops growing at the cap", () => {
    expect(retryDelay(30, settings, () => 1)).toBe(1000);
    expect(retryDelay(30, settings, () => 0)).toBe(500);
  });
});
