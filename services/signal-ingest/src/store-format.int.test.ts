/**
 * signal-ingest's store formats on a store written before formats were recorded, on the embedded
 * engine always and on MongoDB when MONGODB_URL names a replica set (`npm run test:mongo`).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { formatCollection, migrateStore, StoreFormatTooNewError, type FormatMarker, type StoreEngine } from "@vexil/store";
import { testEngineKinds } from "@vexil/store/testing";
import { createSignalStore, type SignalDocument } from "./signals/signal-store.js";
import { signalIngestStoreFormat } from "./store-format.js";

const log = { info: () => undefined };
const signal = (id: number): SignalDocument => ({
  _id: id,
  endpointId: 1,
  endpointName: "deploys",
  tokenName: "ci",
  tokenId: 1,
  payload: { $weird: "kept as it is", n: id },
  createdAt: new Date(Date.UTC(2026, 10, id)),
  announced: id < 3,
});

describe.each(testEngineKinds("signal-ingest store formats"))("signal-ingest store formats: $name", (kind) => {
  let engine: StoreEngine;
  let drop: () => Promise<void>;
  beforeEach(async () => {
    ({ engine, drop } = await kind.open());
    // As a release before format versions wrote it: the same layout, no marker.
    await engine.collection<SignalDocument>("signals").insertMany([signal(1), signal(2), signal(3)]);
    for (let i = 0; i < 3; i++) await engine.nextSequence("signals");
  });
  afterEach(async () => {
    await engine.close();
    await drop();
  });

  it("records the layout written before formats as format 1 and changes no signal", async () => {
    expect(await migrateStore(engine, signalIngestStoreFormat, log)).toEqual({ found: 0, format: 1 });
    expect((await engine.collection<FormatMarker>(formatCollection).findOne({ _id: "signal-ingest" }))?.migrations).toHaveLength(1);
    expect(await engine.collection<SignalDocument>("signals").find({}, { sort: { _id: 1 } })).toEqual([signal(1), signal(2), signal(3)]);
    const signals = await createSignalStore(engine);
    expect((await signals.list(1, { limit: 10, offset: 0 })).map((s) => s.id)).toEqual([3, 2, 1]);
    expect((await signals.pending(10)).map((p) => p.id)).toEqual(["signal-3"]);
    expect(await signals.nextId()).toBe(4);
  });

  it("refuses a store a newer release wrote", async () => {
    await engine
      .collection<FormatMarker>(formatCollection)
      .insertOne({ _id: "signal-ingest", format: 2, markedAt: new Date(), migrations: [] });
    await expect(migrateStore(engine, signalIngestStoreFormat, log)).rejects.toThrow(StoreFormatTooNewError);
  });
});
