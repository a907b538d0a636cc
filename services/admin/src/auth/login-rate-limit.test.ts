import { afterEach, describe, expect, it } from "vitest";
import { createMemoryCache, type Cache } from "@vexil/cache";
import { TooManyRequests } from "@vexil/errors";
import { loginRateLimitEnv, loginRateLimiter } from "./login-rate-limit.js";

describe("login rate limiter", () => {
  let cache: Cache;
  let now = 0;
  const clock = () => new Date(now);
  const start = (settings: Parameters<typeof loginRateLimiter>[1]) => {
    cache = createMemoryCache();
    return loginRateLimiter(cache, settings, clock);
  };
  afterEach(() => cache.close());

  it("lets the configured number of attempts through and refuses the next until its weight has faded", async () => {
    now = 60_000 * 100 + 15_500; // 15.5 s into a one-minute window
    const limiter = start({ SIMPLE_LOGIN_LIMIT_PER_MINUTE: 3 });
    for (let i = 0; i < 3; i++) await limiter.hit("10.0.0.1");
    const refused = await limiter.hit("10.0.0.1").catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(TooManyRequests);
    // Four counted here still weigh 4 * (1 - t/60) in the next window: under 3 with one more once t >= 30 s.
    expect((refused as TooManyRequests).retryAfterSeconds).toBe(75);
    expect((refused as TooManyRequests).toBody().name).toBe("TooManyRequests");
  });

  it("keeps a separate budget per client address", async () => {
    now = 0;
    const limiter = start({ SIMPLE_LOGIN_LIMIT_PER_MINUTE: 1 });
    await limiter.hit("10.0.0.1");
    await expect(limiter.hit("10.0.0.1")).rejects.toBeInstanceOf(TooManyRequests);
    await expect(limiter.hit("10.0.0.2")).resolves.toBeUndefined();
  });

  it("never lets twice the limit through across a window boundary", async () => {
    const windowMs = 10_000;
    now = 5 * windowMs + 9_900; // the limit spent in the last tenth of a window...
    const limiter = start({ SIMPLE_LOGIN_LIMIT_PER_MINUTE: 5, SIMPLE_LOGIN_LIMIT_WINDOW_MS: windowMs });
    for (let i = 0; i < 5; i++) await limiter.hit("::1");
    now = 6 * windowMs + 100; // ...then just past the boundary: a fixed window would allow five more
    await expect(limiter.hit("::1")).rejects.toBeInstanceOf(TooManyRequests);
    // Once the earlier attempts' weight has faded enough, one fits again: 5 * (1 - t/10) + 2 <= 5 from t = 4 s.
    now = 6 * windowMs + 4_000;
    await expect(limiter.hit("::1")).resolves.toBeUndefined();
    // A window later the earlier burst no longer counts at all.
    now = 8 * windowMs;
    for (let i = 0; i < 5; i++) await limiter.hit("::1");
  });

  it("tells a refused address how long until one more attempt fits", async () => {
    const windowMs = 10_000;
    now = 0;
    const limiter = start({ SIMPLE_LOGIN_LIMIT_PER_MINUTE: 4, SIMPLE_LOGIN_LIMIT_WINDOW_MS: windowMs });
    for (let i = 0; i < 4; i++) await limiter.hit("::1");
    now = windowMs + 1_000; // the previous 4 still weigh 3.6: two more attempts now are both refused
    await expect(limiter.hit("::1")).rejects.toBeInstanceOf(TooManyRequests);
    const refused = (await limiter.hit("::1").catch((err: unknown) => err)) as TooManyRequests;
    expect(refused).toBeInstanceOf(TooManyRequests);
    // previous 4 * (1 - t/10) + 2 + 1 <= 4 from t = 7.5 s, 6.5 s from now.
    expect(refused.retryAfterSeconds).toBe(7);
    now = windowMs + 7_500;
    await expect(limiter.hit("::1")).resolves.toBeUndefined();
  });

  describe("per-account backoff", () => {
    const settings = { LOGIN_BACKOFF_AFTER_FAILURES: 3, LOGIN_BACKOFF_BASE_MS: 2_000, LOGIN_BACKOFF_MAX_MS: 10_000 };

    it("locks an account for twice as long at each failure past the free ones, up to the maximum", async () => {
      now = 1_000_000;
      const limiter = start(settings);
      for (let i = 0; i < 3; i++) {
        await limiter.assertAccountOpen("alice");
        await limiter.recordFailure("alice");
      }
      await expect(limiter.assertAccountOpen("alice")).resolves.toBeUndefined();
      const locks: number[] = [];
      for (let i = 0; i < 4; i++) {
        await limiter.recordFailure("alice");
        const refused = (await limiter.assertAccountOpen("alice").catch((err: unknown) => err)) as TooManyRequests;
        expect(refused).toBeInstanceOf(TooManyRequests);
        expect(refused.message).toMatch(/account/);
        locks.push(refused.retryAfterSeconds);
      }
      expect(locks).toEqual([2, 4, 8, 10]);
      now += 10_000;
      await expect(limiter.assertAccountOpen("alice")).resolves.toBeUndefined();
    });

    it("keys accounts by name whatever its case or spaces, and separately from other names", async () => {
      now = 0;
      const limiter = start({ ...settings, LOGIN_BACKOFF_AFTER_FAILURES: 1 });
      await limiter.recordFailure("Bob");
      await limiter.recordFailure(" bob ");
      await expect(limiter.assertAccountOpen("BOB")).rejects.toBeInstanceOf(TooManyRequests);
      await expect(limiter.assertAccountOpen("carol")).resolves.toBeUndefined();
    });

    it("forgets the failures at a successful sign-in", async () => {
      now = 0;
      const limiter = start({ ...settings, LOGIN_BACKOFF_AFTER_FAILURES: 2 });
      await limiter.recordFailure("dave");
      await limiter.recordFailure("dave");
      await limiter.recordSuccess("dave");
      await limiter.recordFailure("dave");
      await limiter.recordFailure("dave");
      await expect(limiter.assertAccountOpen("dave")).resolves.toBeUndefined();
    });
  });

  it("defaults to Unleash's 10 attempts per minute", () => {
    expect(loginRateLimitEnv.parse({})).toEqual({
      SIMPLE_LOGIN_LIMIT_PER_MINUTE: 10,
      SIMPLE_LOGIN_LIMIT_WINDOW_MS: 60_000,
      LOGIN_BACKOFF_AFTER_FAILURES: 5,
      LOGIN_BACKOFF_BASE_MS: 1_000,
      LOGIN_BACKOFF_MAX_MS: 900_000,
    });
  });

  it("rejects limits that would disable or break the check", () => {
    expect(() => loginRateLimitEnv.parse({ SIMPLE_LOGIN_LIMIT_PER_MINUTE: "0" })).toThrow();
    expect(() => loginRateLimitEnv.parse({ SIMPLE_LOGIN_LIMIT_PER_MINUTE: "2.5" })).toThrow();
    expect(() => loginRateLimitEnv.parse({ SIMPLE_LOGIN_LIMIT_WINDOW_MS: "10" })).toThrow();
    expect(loginRateLimitEnv.parse({ SIMPLE_LOGIN_LIMIT_PER_MINUTE: "25" }).SIMPLE_LOGIN_LIMIT_PER_MINUTE).toBe(25);
  });
});
