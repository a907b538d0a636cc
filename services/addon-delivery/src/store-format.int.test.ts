/**
 * addon-delivery's store formats on a store written before formats were recorded, on the embedded
 * engine always and on MongoDB when MONGODB_URL names a replica set (`npm run test:mongo`).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DomainEvent } from "@vexil/contracts";
import { formatCollection, migrateStore, StoreFormatTooNewError, type FormatMarker, type StoreEngine } from "@vexil/store";
import { testEngineKinds } from "@vexil/store/testing";
import { DeliveryStore } from "./delivery/delivery-store.js";
import { addonDeliveryStoreFormat } from "./store-format.js";

const log = { info: () => undefined };
const event = (id: number): DomainEvent => ({
  id: String(id),
  type: "feature-created",
  createdAt: new Date(Date.UTC(2026, 10, 1)).toISOString(),
  createdBy: "alice",
  createdByUserId: 1,
  project: "default",
  environment: null,
  featureName: `flag-${id}`,
  data: null,
  preData: null,
  tags: [],
});

describe.each(testEngineKinds("addon-delivery store formats"))("addon-delivery store formats: $name", (kind) => {
  let engine: StoreEngine;
  let drop: () => Promise<void>;
  beforeEach(async () => {
    ({ engine, drop } = await kind.open());
    // As a release before format versions wrote it: the same layout (written through the store), no marker.
    const store = await DeliveryStore.create(engine);
    await store.enqueue(event(1), 7, new Date(Date.UTC(2026, 10, 1)));
    await store.enqueue(event(2), 7, new Date(Date.UTC(2026, 10, 2)));
  });
  afterEach(async () => {
    await engine.close();
    await drop();
  });

  it("records the layout written before formats as format 1 and changes no delivery", async () => {
    const before = await engine.collection("deliveries").find({}, { sort: { _id: 1 } });
    expect(before).toHaveLength(2);
    expect(await migrateStore(engine, addonDeliveryStoreFormat, log)).toEqual({ found: 0, format: 1 });
    expect((await engine.collection<FormatMarker>(formatCollection).findOne({ _id: "addon-delivery" }))?.format).toBe(1);
    expect(await engine.collection("deliveries").find({}, { sort: { _id: 1 } })).toEqual(before);
    const store = await DeliveryStore.create(engine);
    expect((await store.nextOpen(7))?.event.id).toBe("1");
    expect(await store.enqueue(event(1), 7, new Date())).toBe(false);
  });

  it("refuses a store a newer release wrote", async () => {
    await engine
      .collection<FormatMarker>(formatCollection)
      .insertOne({ _id: "addon-delivery", format: 2, markedAt: new Date(), migrations: [] });
    await expect(migrateStore(engine, addonDeliveryStoreFormat, log)).rejects.toThrow(StoreFormatTooNewError);
  });
});
