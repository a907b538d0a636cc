/**
 * The bus and the cache against servers that go away and come back: each reconnects for as long as
 * it takes, never throws from a fire-and-forget call, says it is down while it is, and tells its
 * users when it is back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNatsBus, type Bus, type EventMessage } from "@vexil/bus";
import { createRedisCache, type Cache } from "@vexil/cache";
import { z } from "zod";
import { privateServersMissing, startPrivateNats, startPrivateRedis, type PrivateServer } from "../src/private-servers.js";
import { waitFor } from "../src/servers.js";

const missing = privateServersMissing();
if (missing) console.log(`skipped: ${missing}`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quiet = { info() {}, warn() {}, error() {}, debug() {} };

// Topics of this test only: what is carried does not matter here, only that it gets through.
const counted = z.object({ n: z.number() });
const event = (subject: string) => ({ kind: "event" as const, subject, schema: counted });
const askTime = { kind: "request" as const, subject: "ask.time", request: z.object({}), reply: z.object({ now: z.number() }) };

describe.skipIf(missing)("the NATS bus through an outage", () => {
  let nats: PrivateServer;
  let bus: Bus;

  beforeAll(async () => {
    nats = await startPrivateNats();
    // Short waits between attempts: nats.js's default of ten attempts would give up within a second.
    bus = await createNatsBus({
      servers: nats.url,
      streamName: "outage",
      streamSubjects: ["events.>"],
      logger: quiet,
      reconnectWaitMs: 100,
    });
  });
  afterAll(async () => {
    await bus?.close();
    await nats?.dispose();
  });

  it("keeps reconnecting, consuming and answering after the broker was away", async () => {
    const received: EventMessage[] = [];
    const consumer = await bus.consume("outage-test", event("events.>"), (msg) => void received.push(msg));
    const replies = bus.reply(askTime, () => ({ now: 1 }));
    let reconnects = 0;
    bus.onReconnect(() => reconnects++);
    await bus.publishEvent(event("events.before"), { n: 1 }, { msgId: "before" });
    expect(await waitFor(async () => received.length === 1, 10_000)).toBe(true);
    await expect(bus.ping()).resolves.toBeUndefined();

    await nats.stop();
    await sleep(3000);
    // Fire-and-forget calls never throw while the broker is away; the health check says so.
    expect(() => bus.publish({ kind: "notice", subject: "note.during", schema: counted }, { n: 2 })).not.toThrow();
    await expect(bus.ping()).rejects.toThrow(/NATS unreachable since/);

    await nats.start();
    expect(await waitFor(async () => reconnects === 1, 20_000)).toBe(true);
    await expect(bus.ping()).resolves.toBeUndefined();
    // JetStream needs a moment after a restart before it takes publishes.
    expect(await waitFor(async () => !!(await bus.publishEvent(event("events.after"), { n: 3 }, { msgId: "after" })), 20_000, 250)).toBe(
      true,
    );
    expect(await waitFor(async () => received.some((m) => m.subject === "events.after"), 20_000)).toBe(true);
    await expect(bus.request(askTime, {})).resolves.toEqual({ now: 1 });
    replies.unsubscribe();
    await consumer.stop();
  }, 90_000);
});

describe.skipIf(missing)("the Redis cache through a restart that lost its data", () => {
  let redis: PrivateServer;
  let cache: Cache;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    cache = await createRedisCache({ url: redis.url, keyPrefix: "outage:", logger: quiet });
  });
  afterAll(async () => {
    await cache?.close();
    await redis?.dispose();
  });

  it("fails fast while Redis is away, counts windows locally meanwhile, and tells its users when it is back", async () => {
    await cache.set("k", "v");
    let reconnects = 0;
    cache.onReconnect(() => reconnects++);

    await redis.stop();
    // No command waits for Redis to return: each fails at once.
    const started = Date.now();
    await expect(cache.get("k")).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5000);
    await expect(cache.ping()).rejects.toThrow();
    // Rate-limit windows go on counting in this process rather than failing every request.
    expect(await cache.incrementWindow("w", 1000)).toBe(1);
    expect(await cache.incrementWindow("w", 1000)).toBe(2);

    await redis.start();
    expect(await waitFor(async () => reconnects === 1, 20_000)).toBe(true);
    await expect(cache.ping()).resolves.toBeUndefined();
    expect(await cache.get("k")).toBeNull();
  }, 60_000);
});
