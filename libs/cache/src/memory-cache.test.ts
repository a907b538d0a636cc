import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { describeCacheContract } from "./cache.contract.js";
import type { Cache } from "./cache.js";
import { createMemoryCache } from "./memory-cache.js";

describeCacheContract("memory", async () => createMemoryCache());

/** What the memory cache alone can show: its expiries to the millisecond, under a fake clock. */
describe("memory cache", () => {
  let cache: Cache;
  beforeEach(() => {
    vi.useFakeTimers();
    cache = createMemoryCache();
  });
  afterEach(() => vi.useRealTimers());

  it("expires an entry exactly at its TTL and keeps one without for a year", async () => {
    await cache.set("short", "x", { ttlSeconds: 2 });
    await cache.set("forever", "y");
    vi.advanceTimersByTime(1999);
    expect(await cache.get("short")).toBe("x");
    vi.advanceTimersByTime(1);
    expect(await cache.get("short")).toBeNull();
    vi.advanceTimersByTime(365 * 24 * 3600 * 1000);
    expect(await cache.get("forever")).toBe("y");
  });

  it("ends a window exactly windowMs after its first hit", async () => {
    expect(await cache.incrementWindow("rl:1.2.3.4", 1000)).toBe(1);
    vi.advanceTimersByTime(600);
    expect(await cache.incrementWindow("rl:1.2.3.4", 1000)).toBe(2);
    vi.advanceTimersByTime(399);
    expect(await cache.incrementWindow("rl:1.2.3.4", 1000)).toBe(3);
    vi.advanceTimersByTime(1);
    expect(await cache.incrementWindow("rl:1.2.3.4", 1000)).toBe(1);
  });
});
