import type { RequestHandler } from "express";
import { z } from "zod";
import type { Cache } from "@vexil/cache";
import { TooManyRequests } from "@vexil/errors";

/** Unleash's sign-in limit, under its variable name and with its default; the window is ours (tests shorten it). */
export const loginRateLimitEnv = z.object({
  /** Password sign-in attempts one client address may make per window. */
  SIMPLE_LOGIN_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(10),
  /** Length of the counting window; one minute, as in Unleash. */
  SIMPLE_LOGIN_LIMIT_WINDOW_MS: z.coerce.number().int().min(100).default(60_000),
});
export type LoginRateLimitSettings = z.infer<typeof loginRateLimitEnv>;

export interface LoginRateLimiter {
  /** Counts one attempt from `clientIp`; throws TooManyRequests once the window's budget is spent. */
  hit(clientIp: string): Promise<void>;
}

/**
 * Fixed windows aligned to the clock, counted in the shared cache (Redis in a cluster) so every
 * admin instance draws from the same budget. The window number is part of the key, so the time
 * left in it is known without asking the cache for a TTL.
 */
export function loginRateLimiter(
  cache: Cache,
  settings: Partial<LoginRateLimitSettings>,
  clock: () => Date = () => new Date(),
): LoginRateLimiter {
  const { SIMPLE_LOGIN_LIMIT_PER_MINUTE: limit, SIMPLE_LOGIN_LIMIT_WINDOW_MS: windowMs } = loginRateLimitEnv.parse(settings);
  return {
    async hit(clientIp) {
      const now = clock().getTime();
      const window = Math.floor(now / windowMs);
      const count = await cache.incrementWindow(`login-rate:${clientIp}:${window}`, windowMs);
      if (count <= limit) return;
      const retryAfterSeconds = Math.max(1, Math.ceil(((window + 1) * windowMs - now) / 1000));
      throw new TooManyRequests(
        `Too many sign-in attempts from this address; try again in ${retryAfterSeconds} seconds`,
        retryAfterSeconds,
      );
    },
  };
}

/** Counts every attempt, right or wrong, before the password is looked at: a correct guess gets no way around the limit. */
export function limitLoginAttempts(limiter: LoginRateLimiter): RequestHandler {
  return (req, _res, next) => {
    limiter.hit(req.ip ?? req.socket.remoteAddress ?? "unknown").then(() => next(), next);
  };
}
