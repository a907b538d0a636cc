import { afterEach, describe, expect, it, vi } from "vitest";
import { createMemoryBus } from "@vexil/bus";
import { createMemoryCache } from "@vexil/cache";
import { cacheKeys } from "@vexil/contracts";
import { createLogger } from "@vexil/logger";
import { clientFeature } from "../client-feature.fixture.js";
import { writeSnapshot } from "./snapshot-cache.fixture.js";
import { SnapshotFreshness } from "./snapshot-freshness.js";
import { SnapshotHolder } from "./snapshot-holder.js";

const logger = createLogger({ service: "test", level: "silent" });
let stop: Array<() => void> = [];
afterEach(() => {
  for (const s of stop) s();
  stop = [];
});

async function setup(environments: string[]) {
  let now = 1_000_000;
  const clock = () => now;
  const cache = createMemoryCache();
  const bus = createMemoryBus();
  await cache.setJson(cacheKeys.snapshotEnvironments, environments);
  const holder = new SnapshotHolder({ cache, bus, logger, retryDelayMs: 10, now: clock });
  const freshness = new SnapshotFreshness({ bus, cache, holder, logger, now: clock });
  stop.push(() => holder.stop());
  return { cache, bus, holder, freshness, advance: (ms: number) => (now += ms), clock };
}

describe("frontend-eval's readiness and freshness", () => {
  it("is ready only once it holds a whole snapshot of every environment it serves", async () => {
    const { cache, holder } = await setup(["development", "production"]);
    await writeSnapshot(cache, "development", { revision: 3, features: [clientFeature("a")] });
    await holder.start();
    expect(holder.has("development")).toBe(true);
    expect(holder.ready).toBe(false);
    await writeSnapshot(cache, "production", { revision: 3, features: [clientFeature("a")] });
    await holder.reloadAll();
    expect(holder.ready).toBe(true);
  });

  it("while NATS is away: stays ready, follows the cache's revisions itself, and says how stale it may be", async () => {
    const { cache, bus, holder, freshness, advance } = await setup(["development"]);
    await writeSnapshot(cache, "development", { revision: 5, features: [clientFeature("a")] });
    await holder.start();
    expect(freshness.ages()).toEqual([["development", 0]]);

    const ping = vi.spyOn(bus, "ping").mockRejectedValue(new Error("NATS unreachable since then"));
    await freshness.check();
    advance(4000);
    expect(freshness.reasons().map((r) => r.reason)).toEqual(["nats"]);
    expect(freshness.ages()).toEqual([["development", 4]]);
    expect(holder.ready).toBe(true);

    // Admin wrote a change to the cache; no announcement reaches this process.
    await writeSnapshot(cache, "development", { revision: 6, features: [clientFeature("a"), clientFeature("b")] });
    await freshness.check();
    expect(holder.get("development").revision).toBe(6);
    advance(1000);
    // Read from the cache a second ago: as current as the cache was then.
    expect(freshness.ages()).toEqual([["development", 1]]);

    ping.mockResolvedValue(undefined);
    await freshness.check();
    expect(freshness.reasons()).toEqual([]);
    expect(freshness.ages()).toEqual([["development", 0]]);
  });

  it("while Redis is away: keeps the snapshot held and counts its age from the outage", async () => {
    const { cache, holder, freshness, advance } = await setup(["development"]);
    await writeSnapshot(cache, "development", { revision: 5, features: [clientFeature("a")] });
    await holder.start();
    vi.spyOn(cache, "ping").mockRejectedValue(new Error("Redis unreachable"));
    await freshness.check();
    advance(2500);
    expect(freshness.reasons().map((r) => r.reason)).toEqual(["redis"]);
    expect(freshness.ages()).toEqual([["development", 2.5]]);
    expect(holder.get("development").revision).toBe(5);
  });
});
