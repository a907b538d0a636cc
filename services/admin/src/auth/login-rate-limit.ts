import { createHash } from "node:crypto";
import type { RequestHandler } from "express";
import { z } from "zod";
import type { Cache } from "@vexil/cache";
import { cacheKeys } from "@vexil/contracts";
import { TooManyRequests } from "@vexil/errors";

/** Unleash's sign-in limit, under its variable name and with its default; the window and the per-account backoff are ours. */
export const loginRateLimitEnv = z.object({
  /** Password sign-in attempts one client address may make per window. */
  SIMPLE_LOGIN_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(10),
  /** Length of the sliding window; one minute, as in Unleash. */
  SIMPLE_LOGIN_LIMIT_WINDOW_MS: z.coerce.number().int().min(100).default(60_000),
  /** Failed sign-ins an account may have before each further failure locks it for a while. */
  LOGIN_BACKOFF_AFTER_FAILURES: z.coerce.number().int().min(1).default(5),
  /** The first lock; each further failure doubles it. */
  LOGIN_BACKOFF_BASE_MS: z.coerce.number().int().min(1).default(1_000),
  /** The longest lock. */
  LOGIN_BACKOFF_MAX_MS: z.coerce
    .number()
    .int()
    .min(1)
    .default(15 * 60_000),
});
export type LoginRateLimitSettings = z.infer<typeof loginRateLimitEnv>;

/** An account's failures are forgotten a day after its first one, or at its next successful sign-in. */
const failuresRememberedMs = 24 * 60 * 60_000;

export interface LoginRateLimiter {
  /** Counts one attempt from `clientIp`; throws TooManyRequests once the window's budget is spent. */
  hit(clientIp: string): Promise<void>;
  /** Throws TooManyRequests while the account named `login` is locked after repeated failures. */
  assertAccountOpen(login: string): Promise<void>;
  /** A wrong password (or an unknown name) for `login`: past the free failures, locks it for longer each time. */
  recordFailure(login: string): Promise<void>;
  /** A successful sign-in clears the account's failures. */
  recordSuccess(login: string): Promise<void>;
}

/**
 * Counted in the shared cache (Redis in a cluster) so every admin instance draws from the same budget.
 *
 * Per address, a sliding window: the previous fixed window's count, weighted by how much of it
 * still lies within one window of now, plus the current one's. Unlike fixed windows, this never
 * lets twice the limit through across a window boundary.
 *
 * Per account, exponential backoff: names are keyed whether or not a user has them, so a lock
 * tells nothing about which names exist.
 */
export function loginRateLimiter(
  cache: Cache,
  settings: Partial<LoginRateLimitSettings>,
  clock: () => Date = () => new Date(),
): LoginRateLimiter {
  const {
    SIMPLE_LOGIN_LIMIT_PER_MINUTE: limit,
    SIMPLE_LOGIN_LIMIT_WINDOW_MS: windowMs,
    LOGIN_BACKOFF_AFTER_FAILURES: freeFailures,
    LOGIN_BACKOFF_BASE_MS: baseMs,
    LOGIN_BACKOFF_MAX_MS: maxMs,
  } = loginRateLimitEnv.parse(settings);
  const accountKey = (login: string) => createHash("sha256").update(login.trim().toLowerCase()).digest("base64url");
  const lockKey = (login: string) => cacheKeys.loginLock(accountKey(login));
  const failuresKey = (login: string) => cacheKeys.loginFailures(accountKey(login));
  // When the shared cache cannot answer a read, the attempt goes ahead: the address's counter
  // still holds then (incrementWindow counts in this process while Redis is away).
  const readOrNull = (key: string) => cache.get(key).catch(() => null);

  return {
    async hit(clientIp) {
      const now = clock().getTime();
      const window = Math.floor(now / windowMs);
      // Each window's counter lives two windows: the next one weighs it.
      const current = await cache.incrementWindow(cacheKeys.loginRate(clientIp, window), 2 * windowMs);
      const previous = Number((await readOrNull(cacheKeys.loginRate(clientIp, window - 1))) ?? 0) || 0;
      const elapsed = now - window * windowMs;
      const weighted = previous * (1 - elapsed / windowMs) + current;
      if (weighted <= limit) return;
      const retryAfterSeconds = Math.max(1, Math.ceil(msUntilUnder(limit, windowMs, elapsed, previous, current) / 1000));
      throw new TooManyRequests(
        `Too many sign-in attempts from this address; try again in ${retryAfterSeconds} seconds`,
        retryAfterSeconds,
      );
    },
    async assertAccountOpen(login) {
      const lockedUntil = Number(await readOrNull(lockKey(login)));
      const left = lockedUntil - clock().getTime();
      if (!(left > 0)) return;
      const retryAfterSeconds = Math.max(1, Math.ceil(left / 1000));
      throw new TooManyRequests(`Too many failed sign-ins for this account; try again in ${retryAfterSeconds} seconds`, retryAfterSeconds);
    },
    async recordFailure(login) {
      const failures = await cache.incrementWindow(failuresKey(login), failuresRememberedMs);
      if (failures <= freeFailures) return;
      const lockMs = Math.min(maxMs, baseMs * 2 ** Math.min(failures - freeFailures - 1, 40));
      await cache.set(lockKey(login), String(clock().getTime() + lockMs), { ttlSeconds: lockMs / 1000 }).catch(() => undefined); // Redis away: the address limit still holds; the lock starts with the next failure it sees.
    },
    async recordSuccess(login) {
      await Promise.all([cache.del(failuresKey(login)), cache.del(lockKey(login))]).catch(() => undefined);
    },
  };
}

/**
 * How long until one more attempt fits: within this window while the previous one's weight
 * fades, or else in the next window, where this one's count becomes the fading one.
 */
function msUntilUnder(limit: number, windowMs: number, elapsed: number, previous: number, current: number): number {
  if (current < limit && previous > 0) {
    // previous * (1 - t / windowMs) + current + 1 <= limit
    const t = windowMs * (1 - (limit - current - 1) / previous);
    if (t < windowMs) return Math.max(0, t - elapsed);
  }
  // In the next window: current * (1 - t / windowMs) + 1 <= limit
  return windowMs - elapsed + windowMs * Math.max(0, 1 - (limit - 1) / current);
}

/** Counts every attempt, right or wrong, before the password is looked at: a correct guess gets no way around the limit. */
export function limitLoginAttempts(limiter: LoginRateLimiter): RequestHandler {
  return (req, _res, next) => {
    limiter.hit(req.ip ?? req.socket.remoteAddress ?? "unknown").then(() => next(), next);
  };
}
