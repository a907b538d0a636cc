import { type RedisClientType, createClient } from "redis";
import { type Cache, assertKey, assertValue, assertWindow, decodeJson, encodeJson, ttlMs } from "./cache.js";

/** Pino-compatible; only warnings are logged (connection trouble). */
export interface CacheLogger {
  warn(obj: object, msg?: string): void;
}

export interface RedisCacheOptions {
  url: string;
  /** Prepended to every key this cache touches, e.g. `vexil:`. */
  keyPrefix?: string;
  logger?: CacheLogger;
}

export type RedisClient = RedisClientType;

export interface RedisCache extends Cache {
  /**
   * The connected node-redis client, for libraries that take one (rate-limiter-flexible with
   * `useRedisPackage: true`). It does not apply `keyPrefix`; give those libraries their own prefix.
   */
  readonly client: RedisClient;
  readonly keyPrefix: string;
}

/**
 * Connects before resolving and rejects if Redis is unreachable at start, so a service fails fast
 * instead of hanging; once connected, it reconnects with backoff (commands fail meanwhile).
 */
export async function createRedisCache({ url, keyPrefix = "", logger }: RedisCacheOptions): Promise<RedisCache> {
  let everReady = false;
  const client: RedisClient = createClient({
    url,
    socket: {
      reconnectStrategy: (retries, cause) =>
        everReady ? Math.min(100 * 2 ** retries, 5000) : new Error(`Redis not reachable at ${redactUrl(url)}: ${cause.message}`),
    },
  });
  client.on("error", (err: unknown) => logger?.warn({ err }, "redis connection error"));
  client.on("ready", () => (everReady = true));
  await client.connect();

  const k = (key: string) => {
    assertKey(key);
    return keyPrefix + key;
  };

  const cache: RedisCache = {
    client,
    keyPrefix,
    async get(key) {
      return client.get(k(key));
    },
    async set(key, value, options) {
      assertValue(value);
      const ms = ttlMs(options);
      await client.set(k(key), value, ms === undefined ? undefined : { expiration: { type: "PX", value: ms } });
    },
    async del(key) {
      return (await client.del(k(key))) > 0;
    },
    async getJson<T>(key: string) {
      return decodeJson<T>(key, await cache.get(key));
    },
    async setJson(key, value, options) {
      await cache.set(key, encodeJson(value), options);
    },
    async incrementWindow(key, windowMs) {
      assertWindow(windowMs);
      const fullKey = k(key);
      // One transaction: the counter never exists without its expiry. NX keeps the window fixed.
      const [count] = await client.multi().incr(fullKey).pExpire(fullKey, windowMs, "NX").exec();
      return Number(count);
    },
    async ping() {
      await client.ping();
    },
    async close() {
      if (client.isOpen) await client.close();
    },
  };
  return cache;
}

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(invalid url)";
  }
}
