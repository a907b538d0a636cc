import { describe, expect, it } from "vitest";
import { flagLastSeen, timeAgo } from "./LastSeen.js";

describe("timeAgo", () => {
  const now = new Date("2026-11-28T10:00:00Z");
  it("says the largest whole unit", () => {
    expect(timeAgo(new Date("2026-11-28T09:59:40Z"), now)).toBe("just now");
    expect(timeAgo(new Date("2026-11-28T09:58:00Z"), now)).toBe("2 min ago");
    expect(timeAgo(new Date("2026-11-28T07:00:00Z"), now)).toBe("3 h ago");
    expect(timeAgo(new Date("2026-11-27T09:00:00Z"), now)).toBe("1 day ago");
    expect(timeAgo(new Date("2026-11-20T10:00:00Z"), now)).toBe("8 days ago");
  });
});

describe("flagLastSeen", () => {
  it("is the latest report of any environment, or null", () => {
    expect(flagLastSeen({ name: "a" })).toBeNull();
    expect(
      flagLastSeen({
        name: "a",
        environments: [
          { name: "development", enabled: true, lastSeenAt: "2026-11-28T09:00:00.000Z" },
          { name: "production", enabled: true, lastSeenAt: "2026-11-28T09:30:00.000Z" },
        ],
      }),
    ).toBe("2026-11-28T09:30:00.000Z");
  });
});
