import type { Cache } from "@vexil/cache";
import { cacheKeys } from "@vexil/contracts";

export interface RateLimiter {
  /** Resolves with the seconds to wait when over the limit, or null when the request may go on. */
  hit(key: string): Promise<number | null>;
}

const windowMs = 1000;

/**
 * One-second windows of the clock per key, counted in the shared cache (Redis in a cluster), so every
 * ingest instance draws from the same budget. The window is the clock's second, not the cache's, so
 * a test steps through windows with a clock of its own.
 */
export function cacheRateLimiter(cache: Cache, perSecond: number, clock: () => Date = () => new Date()): RateLimiter {
  return {
    async hit(key) {
      const now = clock().getTime();
      const window = Math.floor(now / windowMs);
      // Kept two windows, so instances whose clocks differ a little still count into the same one.
      const count = await cache.incrementWindow(cacheKeys.signalRate(key, window), 2 * windowMs);
      return count > perSecond ? Math.max(1, Math.ceil(((window + 1) * windowMs - now) / 1000)) : null;
    },
  };
}
