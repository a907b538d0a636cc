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

  it("lets the configured number of attempts through and refuses the next with the seconds left in the window", async () => {
    now = 60_000 * 100 + 15_500; // 15.5 s into a one-minute window
    const limiter = start({ SIMPLE_LOGIN_LIMIT_PER_MINUTE: 3 });
    for (let i = 0; i < 3; i++) await limiter.hit("10.0.0.1");
    const refused = await limiter.hit("10.0.0.1").catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(TooManyRequests);
    expect((refused as TooManyRequests).retryAfterSeconds).toBe(45);
    expect((refused as TooManyRequests).toBody().name).toBe("TooManyRequests");
  });

  it("keeps a separate budget per client address", async () => {
    now = 0;
    const limiter = start({ SIMPLE_LOGIN_LIMIT_PER_MINUTE: 1 });
    await limiter.hit("10.0.0.1");
    await expect(limiter.hit("10.0.0.1")).rejects.toBeInstanceOf(TooManyRequests);
    await expect(limiter.hit("10.0.0.2")).resolves.toBeUndefined();
  });

  it("opens a fresh budget in the next window", async () => {
    now = 1_000;
    const limiter = start({ SIMPLE_LOGIN_LIMIT_PER_MINUTE: 1, SIMPLE_LOGIN_LIMIT_WINDOW_MS: 2_000 });
    await limiter.hit("::1");
    await expect(limiter.hit("::1")).rejects.toMatchObject({ retryAfterSeconds: 1 });
    now = 2_000;
    await expect(limiter.hit("::1")).resolves.toBeUndefined();
  });

  it("defaults to Unleash's 10 attempts per minute", () => {
    expect(loginRateLimitEnv.parse({})).toEqual({ SIMPLE_LOGIN_LIMIT_PER_MINUTE: 10, SIMPLE_LOGIN_LIMIT_WINDOW_MS: 60_000 });
  });

  it("rejects limits that would disable or break the check", () => {
    expect(() => loginRateLimitEnv.parse({ SIMPLE_LOGIN_LIMIT_PER_MINUTE: "0" })).toThrow();
    expect(() => loginRateLimitEnv.parse({ SIMPLE_LOGIN_LIMIT_PER_MINUTE: "2.5" })).toThrow();
    expect(() => loginRateLimitEnv.parse({ SIMPLE_LOGIN_LIMIT_WINDOW_MS: "10" })).toThrow();
    expect(loginRateLimitEnv.parse({ SIMPLE_LOGIN_LIMIT_PER_MINUTE: "25" }).SIMPLE_LOGIN_LIMIT_PER_MINUTE).toBe(25);
  });
});
