import { type Cache, assertKey, assertValue, assertWindow, decodeJson, encodeJson, ttlMs } from "./cache.js";

interface Entry {
  value: string;
  /** Epoch ms; undefined never expires. */
  expiresAt: number | undefined;
}

/** Expired entries are dropped when read, and swept every this many writes so unread ones go too. */
const sweepEveryWrites = 1000;

/** In-process cache with the Redis variant's semantics; time comes from `Date.now()`. */
export function createMemoryCache(): Cache {
  const entries = new Map<string, Entry>();
  let writes = 0;
  let closed = false;

  const assertOpen = () => {
    if (closed) throw new Error("cache is closed");
  };

  function live(key: string): Entry | undefined {
    const entry = entries.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  }

  function write(key: string, entry: Entry): void {
    entries.set(key, entry);
    if (++writes % sweepEveryWrites !== 0) return;
    const now = Date.now();
    for (const [k, e] of entries) if (e.expiresAt !== undefined && e.expiresAt <= now) entries.delete(k);
  }

  const cache: Cache = {
    async get(key) {
      assertOpen();
      assertKey(key);
      return live(key)?.value ?? null;
    },
    async set(key, value, options) {
      assertOpen();
      assertKey(key);
      assertValue(value);
      const ms = ttlMs(options);
      write(key, { value, expiresAt: ms === undefined ? undefined : Date.now() + ms });
    },
    async del(key) {
      assertOpen();
      assertKey(key);
      const existed = live(key) !== undefined;
      entries.delete(key);
      return existed;
    },
    async getJson<T>(key: string) {
      return decodeJson<T>(key, await cache.get(key));
    },
    async setJson(key, value, options) {
      await cache.set(key, encodeJson(value), options);
    },
    async incrementWindow(key, windowMs) {
      assertOpen();
      assertKey(key);
      assertWindow(windowMs);
      const entry = live(key);
      const count = entry ? Number(entry.value) + 1 : 1;
      if (!Number.isSafeInteger(count)) throw new Error(`cache entry ${key} is not a counter`);
      // Like PEXPIRE NX: a counter that somehow has no expiry gets one.
      write(key, { value: String(count), expiresAt: entry?.expiresAt ?? Date.now() + windowMs });
      return count;
    },
    // In one process there is no connection to lose.
    onReconnect: () => ({ unsubscribe() {} }),
    async ping() {
      assertOpen();
    },
    async close() {
      closed = true;
      entries.clear();
    },
  };
  return cache;
}
