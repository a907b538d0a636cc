import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Cache } from "./cache.js";

/**
 * The behaviour every cache must share, so the in-memory cache `npm start` runs and the Redis one of a
 * deployment keep, expire and count alike. `open` gives a cache whose keys no other run shares (a key
 * prefix); the suite closes it. Expiry is awaited on the real clock with short windows, as Redis keeps
 * its own time.
 */
export function describeCacheContract(name: string, open: () => Promise<Cache>): void {
  describe(`Cache contract: ${name}`, () => {
    let cache: Cache;
    let count = 0;
    /** A key of its own for each use. */
    const fresh = (label: string) => `${label}:${++count}`;

    beforeAll(async () => {
      cache = await open();
    });
    afterAll(async () => {
      await cache?.close();
    });

    it("answers ping", async () => {
      await expect(cache.ping()).resolves.toBeUndefined();
    });

    it("gets, sets, replaces and deletes strings", async () => {
      const key = fresh("snapshot");
      expect(await cache.get(key)).toBeNull();
      await cache.set(key, "v1");
      await cache.set(key, "v2");
      expect(await cache.get(key)).toBe("v2");
      expect(await cache.del(key)).toBe(true);
      expect(await cache.del(key)).toBe(false);
      expect(await cache.get(key)).toBeNull();
    });

    it("expires an entry after its TTL, keeps one without, and a new set replaces the TTL", async () => {
      const short = fresh("short");
      const forever = fresh("forever");
      const replaced = fresh("replaced");
      await cache.set(short, "x", { ttlSeconds: 0.2 });
      await cache.set(forever, "y");
      await cache.set(replaced, "a", { ttlSeconds: 0.2 });
      await cache.set(replaced, "b");
      await vi.waitFor(async () => expect(await cache.get(short)).toBeNull(), { timeout: 5000, interval: 50 });
      expect(await cache.del(short)).toBe(false);
      expect(await cache.get(forever)).toBe("y");
      expect(await cache.get(replaced)).toBe("b");
    });

    it("round-trips a multi-megabyte JSON document with non-ASCII text", async () => {
      const key = fresh("snapshot");
      const snapshot = {
        features: Array.from({ length: 40_000 }, (_, i) => ({
          name: `feature-${i}`,
          description: "é✓ flag ".repeat(10),
          enabled: i % 3 === 0,
        })),
      };
      const json = JSON.stringify(snapshot);
      expect(json.length).toBeGreaterThan(4_000_000);
      await cache.setJson(key, snapshot, { ttlSeconds: 60 });
      expect(await cache.getJson(key)).toEqual(snapshot);
      expect(await cache.get(key)).toBe(json);
      expect(await cache.getJson(fresh("missing"))).toBeNull();
    });

    it("refuses values JSON cannot carry and reports corrupt JSON", async () => {
      const key = fresh("corrupt");
      await expect(cache.setJson(key, undefined)).rejects.toThrow(/no JSON representation/);
      await cache.set(key, "{not json");
      await expect(cache.getJson(key)).rejects.toThrow(/not valid JSON/);
    });

    it("counts hits in a fixed window that starts at the first hit and is gone when it ends", async () => {
      const key = fresh("rl");
      const other = fresh("rl");
      expect(await cache.incrementWindow(key, 300)).toBe(1);
      expect(await cache.incrementWindow(key, 300)).toBe(2);
      expect(await cache.incrementWindow(other, 300)).toBe(1);
      await vi.waitFor(async () => expect(await cache.get(key)).toBeNull(), { timeout: 5000, interval: 50 });
      expect(await cache.incrementWindow(key, 300)).toBe(1);
    });

    it("counts concurrent hits exactly", async () => {
      const key = fresh("burst");
      const counts = await Promise.all(Array.from({ length: 50 }, () => cache.incrementWindow(key, 10_000)));
      expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    });

    it("gives a counter without expiry a window, and refuses non-counters", async () => {
      const plain = fresh("plain");
      await cache.set(plain, "5");
      expect(await cache.incrementWindow(plain, 200)).toBe(6);
      await vi.waitFor(async () => expect(await cache.get(plain)).toBeNull(), { timeout: 5000, interval: 50 });
      const text = fresh("text");
      await cache.set(text, "abc");
      await expect(cache.incrementWindow(text, 10_000)).rejects.toThrow();
      expect(await cache.get(text)).toBe("abc");
    });

    it("rejects bad keys, values, TTLs and windows", async () => {
      await expect(cache.get("")).rejects.toThrow(TypeError);
      await expect(cache.set(fresh("k"), 42 as unknown as string)).rejects.toThrow(/must be a string/);
      await expect(cache.set(fresh("k"), "v", { ttlSeconds: 0 })).rejects.toThrow(RangeError);
      await expect(cache.set(fresh("k"), "v", { ttlSeconds: -1 })).rejects.toThrow(RangeError);
      await expect(cache.set(fresh("k"), "v", { ttlSeconds: Number.NaN })).rejects.toThrow(RangeError);
      await expect(cache.incrementWindow(fresh("k"), 0)).rejects.toThrow(RangeError);
      await expect(cache.incrementWindow(fresh("k"), 1.5)).rejects.toThrow(RangeError);
    });

    it("refuses work once closed", async () => {
      const other = await open();
      await other.close();
      await expect(other.ping()).rejects.toThrow(/closed/);
      await expect(other.get("k")).rejects.toThrow(/closed/);
    });
  });
}
