import { describe, expect, it } from "vitest";
import { ofrepContext } from "./ofrep-evaluation.js";

describe("ofrepContext", () => {
  it("reads targetingKey as the userId, known fields in place and the rest as properties", () => {
    expect(
      ofrepContext({ context: { targetingKey: "u1", sessionId: "s1", plan: "pro", seats: 3, properties: { tier: "gold" } } }, "10.0.0.1"),
    ).toEqual({
      context: { userId: "u1", sessionId: "s1", remoteAddress: "10.0.0.1", properties: { plan: "pro", seats: "3", tier: "gold" } },
    });
  });

  it("evaluates a context without targetingKey, or no context at all, as an anonymous user", () => {
    for (const body of [{ context: { plan: "pro" } }, { context: { targetingKey: "" } }, { context: null }, {}]) {
      const outcome = ofrepContext(body, "10.0.0.1");
      expect(outcome, JSON.stringify(body)).toHaveProperty("context");
      expect((outcome as { context: { userId?: string } }).context.userId).toBeUndefined();
    }
  });

  it("refuses what is not a context with the protocol's codes", () => {
    expect(ofrepContext("text", undefined)).toMatchObject({ errorCode: "PARSE_ERROR" });
    expect(ofrepContext([], undefined)).toMatchObject({ errorCode: "PARSE_ERROR" });
    expect(ofrepContext({ context: "alice" }, undefined)).toMatchObject({ errorCode: "INVALID_CONTEXT" });
    expect(ofrepContext({ context: { targetingKey: 42 } }, undefined)).toMatchObject({ errorCode: "INVALID_CONTEXT" });
    expect(ofrepContext({ context: { properties: [1] } }, undefined)).toMatchObject({ errorCode: "INVALID_CONTEXT" });
    expect(ofrepContext({ context: { address: { city: "Oslo" } } }, undefined)).toMatchObject({ errorCode: "INVALID_CONTEXT" });
  });
});
