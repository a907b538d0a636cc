import { describe, expect, it } from "vitest";
import { createMemoryCache } from "@vexil/cache";
import { cacheRateLimiter } from "./rate-limit.js";

describe("signal rate limit", () => {
  /** A clock the test moves by hand, from a second's start. */
  const clockAt = () => {
    const at = { ms: Date.parse("2024-06-01T00:00:00.000Z") };
    return { at, clock: () => new Date(at.ms) };
  };

  it("takes the configured number of signals in a second of the clock, then says to wait a second", async () => {
    const { at, clock } = clockAt();
    const limiter = cacheRateLimiter(createMemoryCache(), 2, clock);
    expect(await limiter.hit("1")).toBeNull();
    at.ms += 500;
    expect(await limiter.hit("1")).toBeNull();
    expect(await limiter.hit("1")).toBe(1);
    at.ms += 499;
    expect(await limiter.hit("1")).toBe(1);
    at.ms += 1;
    expect(await limiter.hit("1")).toBeNull();
  });

  it("gives each key a budget of its own", async () => {
    const { clock } = clockAt();
    const limiter = cacheRateLimiter(createMemoryCache(), 1, clock);
    expect(await limiter.hit("1")).toBeNull();
    expect(await limiter.hit("1")).toBe(1);
    expect(await limiter.hit("2")).toBeNull();
  });

  it("counts every instance sharing the cache into one budget", async () => {
    const { clock } = clockAt();
    const cache = createMemoryCache();
    const [first, second] = [cacheRateLimiter(cache, 1, clock), cacheRateLimiter(cache, 1, clock)];
    expect(await first.hit("1")).toBeNull();
    expect(await second.hit("1")).toBe(1);
  });
});
