import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tokenDigest } from "@vexil/auth";
import { createMemoryBus } from "@vexil/bus";
import { createMemoryCache, type Cache } from "@vexil/cache";
import { cacheKeys, type SharedSignalEndpoint } from "@vexil/contracts";
import { createLogger } from "@vexil/logger";
import type { StoreEngine } from "@vexil/store";
import { tempEngine, type TempEngine } from "@vexil/store/testing";
import { SharedEndpoints } from "../endpoints/shared-endpoints.js";
import { cacheRateLimiter } from "./rate-limit.js";
import { SignalIntake } from "./signal-intake.js";
import { createSignalStore, type SignalStore } from "./signal-store.js";

const logger = createLogger({ service: "test", level: "silent" });
const endpoints: SharedSignalEndpoint[] = [
  { id: 1, name: "alerts", enabled: true, tokens: [{ id: 10, name: "monitoring", digest: tokenDigest("alerts-secret") }] },
  { id: 2, name: "ci", enabled: true, tokens: [{ id: 20, name: "builds", digest: tokenDigest("ci-secret") }] },
  { id: 3, name: "off", enabled: false, tokens: [{ id: 30, name: "x", digest: tokenDigest("off-secret") }] },
];

describe("SignalIntake", () => {
  let temp: TempEngine;
  let engine: StoreEngine;
  let cache: Cache;
  let signals: SignalStore;
  let stored: number;

  async function intake({ perSecond = 1, payloadLimitBytes = 100_000 } = {}) {
    // One instant for the whole test: every signal falls in the same second of the rate limit.
    const clock = () => new Date("2024-06-01T00:00:00Z");
    return new SignalIntake({
      endpoints: await SharedEndpoints.open(cache, createMemoryBus(), logger),
      signals,
      rateLimiter: cacheRateLimiter(cache, perSecond, clock),
      payloadLimitBytes,
      clock,
      onStored: () => stored++,
    });
  }
  const signal = (endpointName: string, secret: string | undefined, payload: unknown = {}) => ({
    endpointName,
    secret,
    payload,
    payloadBytes: JSON.stringify(payload).length,
  });

  beforeEach(async () => {
    temp = await tempEngine("intake");
    engine = temp.engine;
    signals = await createSignalStore(engine);
    cache = createMemoryCache();
    await cache.setJson(cacheKeys.signalEndpoints, endpoints);
    stored = 0;
  });
  afterEach(async () => {
    await temp.remove();
  });

  it("stores a signal with its source and puts it in the outbox", async () => {
    const { signalId } = await (await intake()).receive(signal("alerts", "alerts-secret", { status: "firing" }));
    expect(stored).toBe(1);
    expect(await signals.list(1, { limit: 10, offset: 0 })).toEqual([
      {
        id: signalId,
        source: "signal-endpoint",
        sourceId: 1,
        createdAt: "2024-06-01T00:00:00.000Z",
        tokenName: "monitoring",
        payload: { status: "firing" },
      },
    ]);
    const [pending] = await signals.pending(10);
    expect(pending).toMatchObject({
      id: `signal-${signalId}`,
      topic: { kind: "event", subject: "signals.received" },
      payload: { signalId, source: "monitoring", endpointName: "alerts" },
    });
    await signals.markPublished([pending.id]);
    expect(await signals.pending(10)).toEqual([]);
  });

  it("refuses missing or unknown tokens (401) before unknown and disabled endpoints (404), then other endpoints' tokens (403)", async () => {
    const take = await intake();
    // Without a valid token nothing tells an unknown endpoint from a known one.
    await expect(take.receive(signal("nope", undefined))).rejects.toMatchObject({ status: 401, name: "AuthenticationRequired" });
    await expect(take.receive(signal("nope", "guess"))).rejects.toMatchObject({ status: 401 });
    await expect(take.receive(signal("nope", "alerts-secret"))).rejects.toMatchObject({ status: 404 });
    await expect(take.receive(signal("off", "off-secret"))).rejects.toMatchObject({ status: 404 });
    await expect(take.receive(signal("alerts", undefined))).rejects.toMatchObject({ status: 401, name: "AuthenticationRequired" });
    await expect(take.receive(signal("alerts", "guess"))).rejects.toMatchObject({ status: 401 });
    await expect(take.receive(signal("alerts", "ci-secret"))).rejects.toMatchObject({ status: 403, name: "NoAccessError" });
    expect(stored).toBe(0);
  });

  it("refuses a payload over the configured size (413) before anything else", async () => {
    const take = await intake({ payloadLimitBytes: 10 });
    await expect(take.receive(signal("nope", undefined, { text: "more than ten bytes" }))).rejects.toMatchObject({ status: 413 });
  });

  it("limits each endpoint to the configured rate with a Retry-After, counting only authenticated calls", async () => {
    const take = await intake({ perSecond: 2 });
    await expect(take.receive(signal("alerts", "guess"))).rejects.toMatchObject({ status: 401 });
    await take.receive(signal("alerts", "alerts-secret"));
    await take.receive(signal("alerts", "alerts-secret"));
    await expect(take.receive(signal("alerts", "alerts-secret"))).rejects.toMatchObject({ status: 429, retryAfterSeconds: 1 });
    // Another endpoint has its own budget.
    await take.receive(signal("ci", "ci-secret"));
    expect(stored).toBe(3);
  });

  it("recognises an endpoint created after it loaded, without waiting for the announcement", async () => {
    const take = await intake();
    const added = { id: 4, name: "late", enabled: true, tokens: [{ id: 40, name: "t", digest: tokenDigest("late-secret") }] };
    await cache.setJson(cacheKeys.signalEndpoints, [...endpoints, added]);
    await expect(take.receive(signal("late", "late-secret"))).resolves.toMatchObject({ signalId: expect.any(Number) });
  });
});
