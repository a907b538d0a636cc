import { randomUUID } from "node:crypto";
import { createConnection } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeCacheContract } from "./cache.contract.js";
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

if (reachable) describeCacheContract("redis", () => createRedisCache({ url, keyPrefix: `${keyPrefix}contract:` }));

/** What Redis alone shows: the prefix on the server, TTLs as Redis holds them, a server out of reach. */
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

  it("stores every key under the key prefix", async () => {
    expect(await cache.get("snapshot:production")).toBeNull();
    await cache.set("snapshot:production", "v1");
    expect(await cache.get("snapshot:production")).toBe("v1");
    expect(await cache.client.get(`${keyPrefix}snapshot:production`)).toBe("v1");
    expect(await cache.del("snapshot:production")).toBe(true);
    expect(await cache.del("snapshot:production")).toBe(false);
  });

  it("sets a TTL in milliseconds, and none without one", async () => {
    await cache.set("short", "x", { ttlSeconds: 0.2 });
    const pttl = await cache.client.pTTL(`${keyPrefix}short`);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(200);
    await cache.set("forever", "y");
    expect(await cache.client.pTTL(`${keyPrefix}forever`)).toBe(-1);
  });

  it("starts a window's expiry at its first hit and never extends it", async () => {
    expect(await cache.incrementWindow("rl:a", 300)).toBe(1);
    const firstTtl = await cache.client.pTTL(`${keyPrefix}rl:a`);
    expect(firstTtl).toBeGreaterThan(0);
    expect(firstTtl).toBeLessThanOrEqual(300);
    expect(await cache.incrementWindow("rl:a", 300)).toBe(2);
    expect(await cache.client.pTTL(`${keyPrefix}rl:a`)).toBeLessThanOrEqual(firstTtl);
  });

  it("fails fast when Redis is not reachable at start", async () => {
    await expect(createRedisCache({ url: "redis://127.0.0.1:1" })).rejects.toThrow(/Redis not reachable at redis:\/\/127.0.0.1:1/);
  });
});
