import { describe, expect, it } from "vitest";
import { signalLimits } from "./signal-limits.js";

describe("signal and action limits", () => {
  it("take Unleash's defaults: 5 endpoints with 5 tokens each, 5 action sets per project", () => {
    expect(signalLimits({})).toEqual({
      endpoints: 5,
      tokensPerEndpoint: 5,
      actionSetsPerProject: 5,
      actionsPerSet: 10,
      filtersPerSet: 5,
      filterValues: 25,
    });
  });

  it("take the configured values, as the environment gives them", () => {
    expect(signalLimits({ UNLEASH_SIGNAL_ENDPOINTS_LIMIT: "12" as unknown as number }).endpoints).toBe(12);
    expect(() => signalLimits({ UNLEASH_SIGNAL_ENDPOINTS_LIMIT: -1 })).toThrow();
  });
});
