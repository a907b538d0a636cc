import { describe, expect, it } from "vitest";
import { tagFilterPattern } from "@vexil/contracts";
import { parseTagFilter, passesTagFilter } from "./tag-filter.js";

describe("the search's tag filter", () => {
  it("reads a plain tag, a list, and Unleash's operators", () => {
    expect(parseTagFilter("simple:beta")).toEqual({ match: "any", tags: [{ type: "simple", value: "beta" }] });
    expect(parseTagFilter("simple:a,team:payments")).toEqual({
      match: "any",
      tags: [
        { type: "simple", value: "a" },
        { type: "team", value: "payments" },
      ],
    });
    expect(parseTagFilter("INCLUDE_ALL_OF:simple:a,simple:b").match).toBe("all");
    expect(parseTagFilter("DO_NOT_INCLUDE:simple:a").match).toBe("none");
    expect(parseTagFilter("EXCLUDE_ALL:simple:a").match).toBe("notAll");
    // A value may hold colons: only the first colon of an entry ends its type.
    expect(parseTagFilter("simple:v:2").tags).toEqual([{ type: "simple", value: "v:2" }]);
  });

  it("accepts only type:value entries", () => {
    for (const ok of ["simple:a", "INCLUDE:simple:a", "simple:a,simple:b", "simple:a b"]) expect(tagFilterPattern.test(ok), ok).toBe(true);
    for (const bad of ["simple", "simple:", ":a", "simple:a,", "INCLUDE:"]) expect(tagFilterPattern.test(bad), bad).toBe(false);
  });

  it("keeps the flags the operator asks for", () => {
    const both = new Set(["simple:a", "simple:b"]);
    const one = new Set(["simple:a"]);
    const filter = (text: string) => parseTagFilter(text);
    expect([both, one, undefined].map((c) => passesTagFilter(filter("simple:a,simple:b"), c))).toEqual([true, true, false]);
    expect([both, one, undefined].map((c) => passesTagFilter(filter("INCLUDE_ALL_OF:simple:a,simple:b"), c))).toEqual([true, false, false]);
    expect([both, one, undefined].map((c) => passesTagFilter(filter("DO_NOT_INCLUDE:simple:a,simple:b"), c))).toEqual([false, false, true]);
    expect([both, one, undefined].map((c) => passesTagFilter(filter("EXCLUDE_ALL:simple:a,simple:b"), c))).toEqual([false, true, true]);
  });
});
