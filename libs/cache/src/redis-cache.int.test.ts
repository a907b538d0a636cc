import { randomUUID } from "node:crypto";
import { createConnection } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type RedisCache, createRedisCache } from "./redis-cache.js";

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const reachable = await new Promise<boolean>((resolve) => {
  const { hostname, port } = new URL(url);
  const socket = createConnection({ host: hostname, port: Number(port || 6379), timeout: 1000 });
  socket.once("connect", () => (socket.destroy(), resolve(true)));
  socket.once("error", () => resolve(false));
  socket.once("timeout", () => (socket.destroy(), resolve(false)));
});
if (!reachable) console.warn(`skipped: Redis not reachable at ${url}`);

// Every key this file writes lives under its own prefix and is deleted afterwards.
const keyPrefix = `test:${randomUUID()}:`;

describe.skipIf(!reachable)("redis cache", () => {
  let cache: RedisCache;
  beforeAll(async () => {
    cache = await createRedisCache({ url, keyPrefix });
  });
  afterAll(async () => {
    if (!cache) return;
    const keys: string[] = [];
    for await (const batch of cache.client.scanIterator({ MATCH: `${keyPrefix}*`, COUNT: 1000 })) keys.push(...batch);
    if (keys.length > 0) await cache.client.del(keys);
    await cache.close();
  });

  it("answers ping", async () => {
    await expect(cache.ping()).resolves.toBeUndefined();
  });

  it("gets, sets and deletes under the key prefix", async () => {
    expect(await cache.get("snapshot:production")).toBeNull();
    await cache.set("snapshot:production", "v1");
    expect(await cache.get("snapshot:production")).toBe("v1");
    expect(await cache.client.get(`${keyPrefix}snapshot:production`)).toBe("v1");
    expect(await cache.del("snapshot:production")).toBe(true);
    expect(await cache.del("snapshot:production")).toBe(false);
  });

  it("sets a TTL in milliseconds and expires the entry", async () => {
    await cache.set("short", "x", { ttlSeconds: 0.2 });
    const pttl = await cache.client.pTTL(`${keyPrefix}short`);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(200);
    await vi.waitFor(async () => expect(await cache.get("short")).toBeNull(), { timeout: 2000, interval: 50 });
    await cache.set("forever", "y");
    expect(await cache.client.pTTL(`${keyPrefix}forever`)).toBe(-1);
  });

  it("round-trips a multi-megabyte JSON snapshot with non-ASCII text", async () => {
    const snapshot = {
      features: Array.from({ length: 40_000 }, (_, i) => ({
        name: `feature-${i}`,
        description: "é✓ flag ".repeat(10),
        enabled: i % 3 === 0,
      })),
    };
    const json = JSON.stringify(snapshot);
    expect(json.length).toBeGreaterThan(4_000_000);
    await cache.setJson("snapshot:big", snapshot);
    expect(await cache.getJson("snapshot:big")).toEqual(snapshot);
    expect(await cache.get("snapshot:big")).toBe(json);
  });

  it("reports corrupt JSON and refuses values JSON cannot carry", async () => {
    await cache.set("corrupt", "{nope");
    await expect(cache.getJson("corrupt")).rejects.toThrow(/not valid JSON/);
    await expect(cache.setJson("k", undefined)).rejects.toThrow(/no JSON representation/);
  });

  it("counts hits in a fixed window that expires from the first hit", async () => {
    expect(await cache.incrementWindow("rl:a", 300)).toBe(1);
    const firstTtl = await cache.client.pTTL(`${keyPrefix}rl:a`);
    expect(firstTtl).toBeGreaterThan(0);
    expect(firstTtl).toBeLessThanOrEqual(300);
    expect(await cache.incrementWindow("rl:a", 300)).toBe(2);
    expect(await cache.client.pTTL(`${keyPrefix}rl:a`)).toBeLessThanOrEqual(firstTtl);
    await vi.waitFor(async () => expect(await cache.get("rl:a")).toBeNull(), { timeout: 2000, interval: 50 });
    expect(await cache.incrementWindow("rl:a", 300)).toBe(1);
  });

  it("counts concurrent hits exactly", async () => {
    const counts = await Promise.all(Array.from({ length: 50 }, () => cache.incrementWindow("rl:burst", 10_000)));
    expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it("gives a counter without expiry a window, and refuses non-counters", async () => {
    await cache.set("plain", "5");
    expect(await cache.incrementWindow("plain", 10_000)).toBe(6);
    expect(await cache.client.pTTL(`${keyPrefix}plain`)).toBeGreaterThan(0);
    await cache.set("text", "abc");
    await expect(cache.incrementWindow("text", 10_000)).rejects.toThrow();
  });

  it("rejects bad keys, values, TTLs and windows before reaching Redis", async () => {
    await expect(cache.get("")).rejects.toThrow(TypeError);
    await expect(cache.set("k", 42 as unknown as string)).rejects.toThrow(/must be a string/);
    await expect(cache.set("k", "v", { ttlSeconds: -1 })).rejects.toThrow(RangeError);
    await expect(cache.incrementWindow("k", 0)).rejects.toThrow(RangeError);
  });

  it("fails fast when Redis is not reachable at start", async () => {
    await expect(createRedisCache({ url: "redis://127.0.0.1:1" })).rejects.toThrow(/Redis not reachable at redis:\/\/127.0.0.1:1/);
  });
});
