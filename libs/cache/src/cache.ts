export interface SetOptions {
  /** Expiry in seconds (fractions allowed, kept to the millisecond); no expiry when absent. */
  ttlSeconds?: number;
}

export interface Cache {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, options?: SetOptions): Promise<void>;
  /** Resolves true when the key existed. */
  del(key: string): Promise<boolean>;
  /** Parses the stored JSON; the shape is not checked, so validate what you read (zod). */
  getJson<T = unknown>(key: string): Promise<T | null>;
  setJson(key: string, value: unknown, options?: SetOptions): Promise<void>;
  /**
   * Counts hits in a fixed window: increments the counter and, on the first hit, starts its
   * expiry of `windowMs`. Returns the count including this hit.
   */
  incrementWindow(key: string, windowMs: number): Promise<number>;
  /** Rejects when the cache cannot answer. */
  ping(): Promise<void>;
  /**
   * Called each time the cache answers again after a loss of connection (not on the first
   * connect). A cache server that restarted may have lost everything: owners write again what
   * they keep there, readers check that it is whole.
   */
  onReconnect(listener: () => void): { unsubscribe(): void };
  close(): Promise<void>;
}

export function assertKey(key: string): void {
  if (typeof key !== "string" || key.length === 0) throw new TypeError("cache key must be a non-empty string");
}

export function assertValue(value: string): void {
  if (typeof value !== "string") throw new TypeError(`cache value must be a string, got ${typeof value}`);
}

/** Milliseconds of the TTL, or undefined for no expiry. */
export function ttlMs(options: SetOptions | undefined): number | undefined {
  const seconds = options?.ttlSeconds;
  if (seconds === undefined) return undefined;
  const ms = Math.round(seconds * 1000);
  if (!Number.isFinite(ms) || ms < 1) throw new RangeError(`ttlSeconds must be at least 0.001, got ${seconds}`);
  return ms;
}

export function assertWindow(windowMs: number): void {
  if (!Number.isInteger(windowMs) || windowMs < 1) throw new RangeError(`windowMs must be a positive integer, got ${windowMs}`);
}

export function encodeJson(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError("value has no JSON representation");
  return json;
}

export function decodeJson<T>(key: string, raw: string | null): T | null {
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    throw new Error(`cache entry ${key} is not valid JSON`);
  }
}
