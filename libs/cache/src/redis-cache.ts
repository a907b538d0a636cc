import { type RedisClientType, createClient } from "redis";
import { type Cache, assertKey, assertValue, assertWindow, decodeJson, encodeJson, ttlMs } from "./cache.js";
import { createMemoryCache } from "./memory-cache.js";

/** Pino-compatible; only connection trouble and its end are logged. */
export interface CacheLogger {
  warn(obj: object, msg?: string): void;
  info?(obj: object, msg?: string): void;
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
 * instead of hanging; once connected, it reconnects with backoff for as long as it takes. Commands
 * fail at once while Redis is away (none waits in a queue for its return), except the rate-limit
 * windows, which go on counting in this process meanwhile.
 */
export async function createRedisCache({ url, keyPrefix = "", logger }: RedisCacheOptions): Promise<RedisCache> {
  let everReady = false;
  let downSince: Date | undefined;
  const reconnectListeners = new Set<() => void>();
  const localWindows = createMemoryCache();
  const client: RedisClient = createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      reconnectStrategy: (retries, cause) =>
        everReady ? Math.min(100 * 2 ** retries, 2000) : new Error(`Redis not reachable at ${redactUrl(url)}: ${cause.message}`),
    },
  });
  client.on("error", (err: unknown) => {
    if (downSince) return;
    downSince = new Date();
    logger?.warn({ err }, "redis connection lost; reconnecting until it is back");
  });
  client.on("ready", () => {
    const reconnected = everReady;
    everReady = true;
    if (!reconnected) return;
    logger?.info?.({ downSince }, "redis reconnected");
    downSince = undefined;
    for (const listener of reconnectListeners) {
      try {
        listener();
      } catch (err) {
        logger?.warn({ err }, "a redis reconnect listener failed");
      }
    }
  });
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
      if (client.isReady) {
        try {
          // One transaction: the counter never exists without its expiry. NX keeps the window fixed.
          const [count] = await client.multi().incr(fullKey).pExpire(fullKey, windowMs, "NX").exec();
          return Number(count);
        } catch (err) {
          if (client.isReady) throw err;
        }
      }
      return localWindows.incrementWindow(fullKey, windowMs);
    },
    async ping() {
      if (!client.isOpen) throw new Error("cache is closed");
      if (!client.isReady) throw new Error(`Redis unreachable${downSince ? ` since ${downSince.toISOString()}` : ""}; reconnecting`);
      await client.ping();
    },
    onReconnect(listener) {
      reconnectListeners.add(listener);
      return { unsubscribe: () => void reconnectListeners.delete(listener) };
    },
    async close() {
      await localWindows.close();
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
