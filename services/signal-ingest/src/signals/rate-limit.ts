import type { Cache } from "@vexil/cache";
import { cacheKeys } from "@vexil/contracts";

export interface RateLimiter {
  /** Resolves with the seconds to wait when over the limit, or null when the request may go on. */
  hit(key: string): Promise<number | null>;
}

/**
 * A fixed one-second window per key, counted in the shared cache (Redis in a cluster), so every
 * ingest instance draws from the same budget.
 */
export function cacheRateLimiter(cache: Cache, perSecond: number): RateLimiter {
  const windowMs = 1000;
  return {
    async hit(key) {
      const count = await cache.incrementWindow(cacheKeys.signalRate(key), windowMs);
      return count > perSecond ? Math.ceil(windowMs / 1000) : null;
    },
  };
}
