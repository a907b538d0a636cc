import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Cache } from "./cache.js";
import { createMemoryCache } from "./memory-cache.js";

describe("memory cache", () => {
  let cache: Cache;
  beforeEach(() => {
    vi.useFakeTimers();
    cache = createMemoryCache();
  });
  afterEach(() => vi.useRealTimers());

  it("gets, sets and deletes strings", async () => {
    expect(await cache.get("snapshot:production")).toBeNull();
    await cache.set("snapshot:production", "v1");
    await cache.set("snapshot:production", "v2");
    expect(await cache.get("snapshot:production")).toBe("v2");
    expect(await cache.del("snapshot:production")).toBe(true);
    expect(await cache.del("snapshot:production")).toBe(false);
    expect(await cache.get("snapshot:production")).toBeNull();
  });

  it("expires entries after their TTL and keeps those without one", async () => {
    await cache.set("short", "x", { ttlSeconds: 2 });
    await cache.set("forever", "y");
    vi.advanceTimersByTime(1999);
    expect(await cache.get("short")).toBe("x");
    vi.advanceTimersByTime(1);
    expect(await cache.get("short")).toBeNull();
    expect(await cache.del("short")).toBe(false);
    vi.advanceTimersByTime(365 * 24 * 3600 * 1000);
    expect(await cache.get("forever")).toBe("y");
  });

  it("a new set replaces the TTL", async () => {
    await cache.set("k", "a", { ttlSeconds: 1 });
    await cache.set("k", "b");
    vi.advanceTimersByTime(5000);
    expect(await cache.get("k")).toBe("b");
  });

  it("round-trips JSON, including large documents", async () => {
    const snapshot = {
      features: Array.from({ length: 20_000 }, (_, i) => ({ name: `feature-${i}`, enabled: i % 2 === 0, description: "é✓".repeat(50) })),
    };
    await cache.setJson("snapshot:production", snapshot, { ttlSeconds: 60 });
    expect(await cache.getJson("snapshot:production")).toEqual(snapshot);
    expect(await cache.getJson("missing")).toBeNull();
  });

  it("refuses values JSON cannot carry and reports corrupt JSON", async () => {
    await expect(cache.setJson("k", undefined)).rejects.toThrow(/no JSON representation/);
    await cache.set("k", "{not json");
    await expect(cache.getJson("k")).rejects.toThrow(/not valid JSON/);
  });

  it("counts hits in a fixed window that starts at the first hit", async () => {
    expect(await cache.incrementWindow("rl:1.2.3.4", 1000)).toBe(1);
    vi.advanceTimersByTime(600);
    expect(await cache.incrementWindow("rl:1.2.3.4", 1000)).toBe(2);
    vi.advanceTimersByTime(399);
    expect(await cache.incrementWindow("rl:1.2.3.4", 1000)).toBe(3);
    vi.advanceTimersByTime(1);
    expect(await cache.incrementWindow("rl:1.2.3.4", 1000)).toBe(1);
    expect(await cache.incrementWindow("rl:other", 1000)).toBe(1);
  });

  it("gives a counter without expiry a window, and refuses non-counters", async () => {
    await cache.set("plain", "5");
    expect(await cache.incrementWindow("plain", 100)).toBe(6);
    vi.advanceTimersByTime(100);
    expect(await cache.get("plain")).toBeNull();
    await cache.set("text", "abc");
    await expect(cache.incrementWindow("text", 100)).rejects.toThrow(/not a counter/);
  });

  it("rejects bad keys, values, TTLs and windows", async () => {
    await expect(cache.get("")).rejects.toThrow(TypeError);
    await expect(cache.set("k", 42 as unknown as string)).rejects.toThrow(/must be a string/);
    await expect(cache.set("k", "v", { ttlSeconds: 0 })).rejects.toThrow(RangeError);
    await expect(cache.set("k", "v", { ttlSeconds: Number.NaN })).rejects.toThrow(RangeError);
    await expect(cache.incrementWindow("k", 0)).rejects.toThrow(RangeError);
    await expect(cache.incrementWindow("k", 1.5)).rejects.toThrow(RangeError);
  });

  it("answers ping until closed, then refuses work", async () => {
    await expect(cache.ping()).resolves.toBeUndefined();
    await cache.close();
    await expect(cache.ping()).rejects.toThrow(/closed/);
    await expect(cache.get("k")).rejects.toThrow(/closed/);
  });
});
