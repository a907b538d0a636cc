/**
 * Retention of received signals: the store's sweep on the embedded engine always and on MongoDB
 * when MONGODB_URL names a replica set (`npm run test:mongo`), and the service running it with its setting.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createMemoryBus } from "@vexil/bus";
import { createMemoryCache } from "@vexil/cache";
import { cacheKeys } from "@vexil/contracts";
import { createLogger } from "@vexil/logger";
import type { StoreEngine } from "@vexil/store";
import { testEngineKinds } from "@vexil/store/testing";
import { createSignalIngestService } from "../service.js";
import { createSignalStore, type SignalDocument } from "./signal-store.js";

const now = new Date("2030-03-31T00:00:00.000Z");
const daysAgo = (days: number) => new Date(now.getTime() - days * 24 * 60 * 60 * 1000);
const signal = (id: number, createdAt: Date, announced = true): SignalDocument => ({
  _id: id,
  endpointId: 1,
  endpointName: "deploys",
  tokenId: 1,
  tokenName: "ci",
  payload: { id },
  createdAt,
  announced,
});

describe.each(testEngineKinds("signal retention"))("signal retention: $name", (kind) => {
  let engine: StoreEngine;
  let drop: () => Promise<void>;
  beforeEach(async () => {
    ({ engine, drop } = await kind.open());
    await engine.collection<SignalDocument>("signals").insertMany([
      signal(1, daysAgo(40)),
      signal(2, daysAgo(31)),
      // Never announced (the bus was away): it stays until it is, whatever its age.
      signal(3, daysAgo(35), false),
      signal(4, daysAgo(29)),
      signal(5, daysAgo(1)),
    ]);
  });
  afterEach(async () => {
    await engine.close();
    await drop();
  });

  const remaining = async () => (await engine.collection<SignalDocument>("signals").find({}, { sort: { _id: 1 } })).map((doc) => doc._id);

  it("deletes the announced signals received before the cutoff, and no other", async () => {
    const signals = await createSignalStore(engine);
    expect(await signals.prune(daysAgo(30))).toBe(2);
    expect(await remaining()).toEqual([3, 4, 5]);
    expect(await signals.prune(daysAgo(30))).toBe(0);
  });

  it("is run by the service at start with SIGNALS_RETENTION_DAYS, and not at all with 0", async () => {
    const start = async (days: number) => {
      const cache = createMemoryCache();
      await cache.setJson(cacheKeys.signalEndpoints, []);
      const service = await createSignalIngestService({
        engines: { store: engine, bus: createMemoryBus(), cache },
        logger: createLogger({ service: "signal-retention-test", level: "silent" }),
        settings: { SIGNALS_RETENTION_DAYS: days },
        clock: () => now,
      });
      await service.start();
      return service;
    };
    const keeping = await start(0);
    // Its outbox relay announces the signal the bus missed; retention 0 deletes nothing.
    await vi.waitFor(async () => expect(await engine.collection<SignalDocument>("signals").countDocuments({ announced: false })).toBe(0));
    await keeping.stop();
    expect(await remaining()).toEqual([1, 2, 3, 4, 5]);

    const pruning = await start(7);
    await vi.waitFor(async () => expect(await remaining()).toEqual([5]));
    await pruning.stop();
  });
});
