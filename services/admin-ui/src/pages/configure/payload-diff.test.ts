import { describe, expect, it } from "vitest";
import { payloadDiff } from "./payload-diff.js";

describe("payloadDiff", () => {
  it("lists the fields that changed, before and after", () => {
    expect(payloadDiff({ name: "a", enabled: false, keep: 1 }, { name: "a", enabled: true, keep: 1, added: "x" })).toEqual([
      { field: "added", before: undefined, after: '"x"' },
      { field: "enabled", before: "false", after: "true" },
    ]);
  });

  it("says nothing for a created or deleted thing (one side only) and compares plain values whole", () => {
    expect(payloadDiff(null, { name: "a" })).toEqual([]);
    expect(payloadDiff(["a"], ["b"])).toEqual([{ field: "value", before: '["a"]', after: '["b"]' }]);
  });
});
