import { describe, expect, it } from "vitest";
import { revisionFrom } from "./client-routes.js";
import { inlineSegmentsFor } from "./features-response.js";

describe("client request parsing", () => {
  it("reads revisions from ETags and event ids, and nothing else", () => {
    expect(revisionFrom('"12"')).toBe(12);
    expect(revisionFrom('W/"7"')).toBe(7);
    expect(revisionFrom("40")).toBe(40);
    expect(revisionFrom('"abc:1:v1"')).toBeUndefined();
    expect(revisionFrom(undefined)).toBeUndefined();
  });

  it("inlines segments below client spec 4.2.0 and rejects non-versions", () => {
    expect(inlineSegmentsFor(undefined)).toBe(true);
    expect(inlineSegmentsFor("4.1.9")).toBe(true);
    expect(inlineSegmentsFor("4.2.0")).toBe(false);
    expect(inlineSegmentsFor("5.2.0")).toBe(false);
    expect(() => inlineSegmentsFor("latest")).toThrow(/Unleash-Client-Spec/);
  });
});
