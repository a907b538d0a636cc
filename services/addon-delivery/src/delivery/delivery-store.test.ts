import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { DomainEvent } from "@vexil/contracts";
import { createEmbeddedEngine, type StoreEngine } from "@vexil/store";
import { DeliveryStore, type DeliveryDocument } from "./delivery-store.js";

const event: DomainEvent = {
  id: "41",
  type: "feature-created",
  createdAt: new Date(0).toISOString(),
  createdBy: "alice",
  createdByUserId: 1,
  project: "default",
  environment: null,
  featureName: "flag",
  data: null,
  preData: null,
  tags: [],
};
const at = (ms: number) => new Date(ms);
const success = { state: "success" as const, statusCode: 200, details: "Delivered", nextAttemptAt: 0, partsDone: [] };

describe("delivery store: leases and claims between replicas", () => {
  let dir: string;
  let engine: StoreEngine;
  let store: DeliveryStore;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "vexil-delivery-store-"));
    engine = await createEmbeddedEngine({ dir });
    store = await DeliveryStore.create(engine);
  });
  afterEach(async () => {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function queued(): Promise<DeliveryDocument> {
    expect(await store.enqueue(event, 7, at(1000))).toBe(true);
    return (await store.nextOpen(7))!;
  }

  describe("addon lease", () => {
    it("goes to one replica at a time and is renewed by its holder", async () => {
      expect(await store.acquireLease(7, "a", at(1000), 100)).toBe(true);
      expect(await store.acquireLease(7, "b", at(1050), 100)).toBe(false);
      // Renewed at 1080: still a's at 1150, past the first expiry.
      expect(await store.acquireLease(7, "a", at(1080), 100)).toBe(true);
      expect(await store.acquireLease(7, "b", at(1150), 100)).toBe(false);
      // Leases are per addon.
      expect(await store.acquireLease(8, "b", at(1150), 100)).toBe(true);
    });

    it("passes to another replica once the holder stops renewing", async () => {
      expect(await store.acquireLease(7, "a", at(1000), 100)).toBe(true);
      expect(await store.acquireLease(7, "b", at(1100), 100)).toBe(true);
      expect(await store.acquireLease(7, "a", at(1150), 100)).toBe(false);
    });

    it("is free at once after its holder releases it, and only its holder can release it", async () => {
      expect(await store.acquireLease(7, "a", at(1000), 100)).toBe(true);
      await store.releaseLease(7, "b");
      expect(await store.acquireLease(7, "b", at(1010), 100)).toBe(false);
      await store.releaseLease(7, "a");
      expect(await store.acquireLease(7, "b", at(1020), 100)).toBe(true);
    });
  });

  describe("delivery claim", () => {
    it("is taken by one replica; another is told until when it is held", async () => {
      const head = await queued();
      expect(head).toMatchObject({ claimedBy: null, claimedUntil: 0 });
      const claim = await store.claim(head, "a", at(2000), 500);
      expect(claim).toEqual({ delivery: { ...head, claimedBy: "a", claimedUntil: 2500 } });
      expect(await store.claim(head, "b", at(2100), 500)).toEqual({ busyUntil: 2500 });
      // Its holder may claim it again (a restarted process with the same replica name).
      expect(await store.claim(head, "a", at(2100), 500)).toMatchObject({ delivery: { claimedBy: "a", claimedUntil: 2600 } });
    });

    it("is taken over once expired, and the late holder cannot record its attempt", async () => {
      const head = await queued();
      const late = await store.claim(head, "a", at(2000), 500);
      expect(await store.claim(head, "b", at(2500), 500)).toMatchObject({ delivery: { claimedBy: "b" } });
      expect(await store.recordAttempt((late as { delivery: DeliveryDocument }).delivery, "a", success, at(2600))).toBe(false);
      expect(await store.nextOpen(7)).toMatchObject({ state: "pending", attempt: 0, claimedBy: "b" });
      expect(await store.logOf(7, { limit: 10, offset: 0 })).toEqual([]);
    });

    it("cannot be recorded without a claim", async () => {
      const head = await queued();
      expect(await store.recordAttempt(head, "a", success, at(2000))).toBe(false);
      expect(await store.logOf(7, { limit: 10, offset: 0 })).toEqual([]);
    });

    it("is freed by its holder's recorded attempt, which a stale read cannot claim again", async () => {
      const head = await queued();
      await store.claim(head, "a", at(2000), 500);
      const retrying = { ...success, state: "retrying" as const, statusCode: 500, nextAttemptAt: 2100 };
      expect(await store.recordAttempt(head, "a", retrying, at(2050))).toBe(true);
      const next = (await store.nextOpen(7))!;
      expect(next).toMatchObject({ state: "retrying", attempt: 1, claimedBy: null, claimedUntil: 0 });
      // A replica that read the delivery before that attempt must look again, not send it again.
      expect(await store.claim(head, "b", at(2200), 500)).toEqual({ busyUntil: 0 });
      expect(await store.claim(next, "b", at(2200), 500)).toMatchObject({ delivery: { attempt: 1, claimedBy: "b" } });
      expect((await store.logOf(7, { limit: 10, offset: 0 })).map((e) => e.state)).toEqual(["retrying"]);
    });

    it("cannot be taken once the delivery is finished", async () => {
      const head = await queued();
      const { delivery } = (await store.claim(head, "a", at(2000), 500)) as { delivery: DeliveryDocument };
      expect(await store.recordAttempt(delivery, "a", success, at(2010))).toBe(true);
      expect(await store.claim({ ...delivery, attempt: 1 }, "b", at(9000), 500)).toEqual({ busyUntil: 0 });
      expect(await store.nextOpen(7)).toBeNull();
    });
  });
});

describe("delivery store: retention", () => {
  let dir: string;
  let engine: StoreEngine;
  let store: DeliveryStore;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "vexil-delivery-retention-"));
    engine = await createEmbeddedEngine({ dir });
    store = await DeliveryStore.create(engine);
  });
  afterEach(async () => {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("prunes finished deliveries and log entries older than the cutoff, never open ones", async () => {
    const day = 24 * 60 * 60 * 1000;
    const eventNumbered = (id: string): DomainEvent => ({ ...event, id });
    // Delivered long ago; failed long ago; still retrying long ago; delivered recently.
    for (const [id, addonId] of [
      ["1", 1],
      ["2", 2],
      ["3", 3],
      ["4", 4],
    ] as const) {
      await store.enqueue(eventNumbered(id), addonId, at(day));
    }
    const finish = async (addonId: number, state: "success" | "failed" | "retrying", when: number) => {
      const delivery = (await store.nextOpen(addonId))!;
      await store.claim(delivery, "a", at(when), 1000);
      await store.recordAttempt(delivery, "a", { ...success, state }, at(when));
    };
    await finish(1, "success", day);
    await finish(2, "failed", day);
    await finish(3, "retrying", day);
    await finish(4, "success", 40 * day);

    expect(await store.prune(at(30 * day))).toEqual({ deliveries: 2, log: 3 });
    expect(await store.addonsWithOpenDeliveries()).toEqual([3]);
    expect(await store.enqueue(eventNumbered("4"), 4, at(41 * day))).toBe(false);
    expect((await store.logOf(4, { limit: 10, offset: 0 })).map((entry) => entry.state)).toEqual(["success"]);
    expect(await store.logOf(1, { limit: 10, offset: 0 })).toEqual([]);
  });
});

describe("delivery store: indexes", () => {
  it("has an index for every query on the growing deliveries and log: by addon, by state (the sweeper), by age", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "vexil-delivery-indexes-"));
    const engine = await createEmbeddedEngine({ dir });
    const created = vi.spyOn(engine.collection("deliveries").constructor.prototype, "createIndex");
    try {
      await DeliveryStore.create(engine);
      const keys = created.mock.calls.map(([spec]) => Object.keys(spec as object).join(","));
      expect(keys).toEqual(expect.arrayContaining(["addonId,state,seq", "state,addonId", "updatedAt", "addonId,_id", "createdAt"]));
    } finally {
      created.mockRestore();
      await engine.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
