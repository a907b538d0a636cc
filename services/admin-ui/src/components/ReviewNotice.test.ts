import type { ChangeRequest } from "@vexil/contracts";
import { describe, expect, it } from "vitest";
import { requestName, waitsFor } from "./ReviewNotice.js";

const request = (change: Partial<ChangeRequest>): ChangeRequest => ({
  id: 7,
  environment: "production",
  minApprovals: 1,
  project: "shop",
  features: [],
  segments: [],
  state: "In review",
  createdBy: { id: 1 },
  ...change,
});
const review = (id: number) => ({ createdBy: { id }, createdAt: "2026-11-28T10:00:00.000Z" });

describe("waitsFor", () => {
  it("is someone else's request in review that this person has neither approved nor rejected", () => {
    expect(waitsFor(request({}), 2)).toBe(true);
    expect(waitsFor(request({}), 1)).toBe(false);
    expect(waitsFor(request({ state: "Approved" }), 2)).toBe(false);
    expect(waitsFor(request({ approvals: [review(2)] }), 2)).toBe(false);
    expect(waitsFor(request({ rejections: [review(2)] }), 2)).toBe(false);
    expect(waitsFor(request({ approvals: [review(3)] }), 2)).toBe(true);
  });
});

describe("requestName", () => {
  it("adds a written title to the number, not the default one that repeats it", () => {
    expect(requestName(request({ title: "Change request #7" }))).toBe("#7");
    expect(requestName(request({ title: "Winter prices" }))).toBe("#7 Winter prices");
  });
});
