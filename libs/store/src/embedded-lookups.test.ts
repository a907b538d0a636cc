import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createEmbeddedEngine, type Collection, type Filter, type StoreEngine, type StoreSession } from "./index.js";

interface Item {
  _id: string;
  project: string;
  n: number;
  on: boolean;
  tags: string[];
  deps: Array<{ feature: string }>;
}

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Deterministic pseudo-random numbers, so a failure repeats. */
function rng(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1664525 + 1013904223) % 4294967296;
    return Math.floor((state / 4294967296) * below);
  };
}

function item(random: (below: number) => number, id: string): Item {
  return {
    _id: id,
    project: `p${random(4)}`,
    n: random(5),
    on: random(2) === 1,
    tags: Array.from({ length: random(3) }, () => `t${random(4)}`),
    deps: Array.from({ length: random(3) }, () => ({ feature: `f${random(6)}` })),
  };
}

const queries: Array<Filter<Item>> = [
  { project: "p1" },
  { project: "p2", on: true },
  { project: { $in: ["p0", "p3"] } },
  { project: { $eq: "p1" }, n: { $gt: 1 } },
  { n: 3 },
  { n: "3" as unknown as number },
  { on: false },
  { tags: "t2" },
  { tags: { $in: ["t0", "t3"] } },
  { "deps.feature": "f4" },
  { "deps.feature": { $in: ["f1", "f5"] } },
  { _id: { $in: ["i3", "i9", "i1", "missing"] } },
  { project: "nowhere" },
  { tags: { $in: [] } },
];

/**
 * The same writes go to a collection with indexes and to one without: every query must find the
 * same documents in the same (natural) order, so a lookup through an index never changes an answer.
 */
describe("embedded engine lookups through indexes", () => {
  async function setUp(): Promise<{ engine: StoreEngine; indexed: Collection<Item>; plain: Collection<Item> }> {
    const dir = await mkdtemp(join(tmpdir(), "vexil-store-lookups-"));
    dirs.push(dir);
    const engine = await createEmbeddedEngine({ dir });
    const indexed = engine.collection<Item>("indexed");
    const plain = engine.collection<Item>("plain");
    await indexed.createIndex({ project: 1, on: 1 });
    await indexed.createIndex({ n: 1 });
    await indexed.createIndex({ on: 1 });
    await indexed.createIndex({ tags: 1 });
    await indexed.createIndex({ "deps.feature": 1 });
    return { engine, indexed, plain };
  }

  async function expectSameAnswers(indexed: Collection<Item>, plain: Collection<Item>, session?: StoreSession) {
    for (const filter of queries) {
      const [fromIndex, fromScan] = await Promise.all([indexed.find(filter, { session }), plain.find(filter, { session })]);
      expect(fromIndex, JSON.stringify(filter)).toEqual(fromScan);
      expect(await indexed.countDocuments(filter, { session })).toBe(fromScan.length);
      expect(await indexed.findOne(filter, { session })).toEqual(fromScan[0] ?? null);
    }
  }

  it("finds what a scan finds, in natural order, after inserts, updates, replacements and deletes", async () => {
    const { engine, indexed, plain } = await setUp();
    const random = rng(7);
    for (let step = 0; step < 400; step++) {
      const id = `i${random(40)}`;
      const action = random(4);
      for (const collection of [indexed, plain]) {
        const replay = rng(step + 1);
        if (action === 0) await collection.replaceOne({ _id: id }, item(replay, id), { upsert: true });
        else if (action === 1) await collection.updateOne({ _id: id }, { $set: { project: `p${replay(4)}`, tags: [`t${replay(4)}`] } });
        else if (action === 2) await collection.updateMany({ project: `p${action}` }, { $inc: { n: 1 } });
        else await collection.deleteOne({ _id: id });
      }
    }
    await expectSameAnswers(indexed, plain);
    await engine.close();
  });

  it("sees a transaction's staged changes through an index, and only the committed ones outside it", async () => {
    const { engine, indexed, plain } = await setUp();
    const random = rng(11);
    for (let i = 0; i < 30; i++) {
      const doc = item(random, `i${i}`);
      await indexed.insertOne(doc);
      await plain.insertOne(doc);
    }
    const committed = await indexed.find({ project: "p1" });
    await engine.withTransaction(async (session) => {
      for (const collection of [indexed, plain]) {
        await collection.updateMany({ project: "p1" }, { $set: { project: "p2" } }, { session });
        await collection.updateOne({ _id: "i4" }, { $set: { project: "p1", tags: ["t2"], deps: [{ feature: "f4" }] } }, { session });
        await collection.deleteOne({ _id: "i5" }, { session });
        await collection.insertOne({ _id: "i99", project: "p1", n: 3, on: true, tags: ["t0"], deps: [{ feature: "f1" }] }, { session });
      }
      await expectSameAnswers(indexed, plain, session);
      expect(await indexed.find({ project: "p1" })).toEqual(committed);
    });
    await expectSameAnswers(indexed, plain);
    await engine.close();
  });

  it("reads an integer `_id` range by enumerating it, finding what a scan finds", async () => {
    const { engine } = await setUp();
    const events = engine.collection<{ _id: number | string; n: number }>("events");
    for (let id = 1; id <= 60; id++) await events.insertOne({ _id: id, n: id % 7 });
    await events.insertOne({ _id: "30", n: 1 });
    await events.deleteMany({ n: 3 });
    const ranges = [
      { $gt: 10, $lte: 20 },
      { $gte: 10.5, $lt: 20.5 },
      { $gt: 55, $lte: 80 },
      { $gt: 20, $lte: 10 },
      { $gte: -5, $lt: 3 },
    ];
    const expectSame = async (session?: StoreSession) => {
      for (const range of ranges) {
        // A top-level $and is not read through the range: the scan gives the reference answer.
        const [fromRange, fromScan] = await Promise.all([
          events.find({ _id: range }, { session }),
          events.find({ $and: [{ _id: range }] }, { session }),
        ]);
        expect(fromRange, JSON.stringify(range)).toEqual(fromScan);
        expect(await events.find({ _id: range }, { session, sort: { _id: 1 } })).toEqual(
          fromScan.sort((a, b) => Number(a._id) - Number(b._id)),
        );
      }
    };
    await expectSame();
    await engine.withTransaction(async (session) => {
      await events.insertOne({ _id: 15.5, n: 0 }, { session });
      await events.insertOne({ _id: 61, n: 0 }, { session });
      await events.deleteOne({ _id: 12 }, { session });
      await expectSame(session);
    });
    // Committed now: a fractional id makes enumeration miss it, so the range falls back to the scan.
    await expectSame();
    expect((await events.find({ _id: { $gt: 15, $lt: 16 } })).map((event) => event._id)).toEqual([15.5]);
    await engine.close();
  });

  it("pages a sort on `_id` by walking ascending ids, answering what sorting every match answers", async () => {
    const { engine } = await setUp();
    const log = engine.collection<{ _id: number; kind: string; n: number }>("log");
    await log.createIndex({ kind: 1 });
    for (let id = 1; id <= 80; id++) await log.insertOne({ _id: id, kind: `k${id % 3}`, n: id % 5 });
    await log.deleteMany({ n: 2 });
    const pages = [
      { skip: 0, limit: 1 },
      { skip: 5, limit: 10 },
      { skip: 60, limit: 10 },
      { skip: 0, limit: 0 },
    ];
    const filters: Array<Filter<{ _id: number; kind: string; n: number }>> = [{}, { kind: "k1" }, { n: { $gt: 2 } }, { kind: "none" }];
    const expectSorted = async (session?: StoreSession) => {
      for (const filter of filters) {
        const all = await log.find(filter, { session });
        for (const direction of [1, -1] as const) {
          const sorted = [...all].sort((a, b) => direction * (a._id - b._id));
          for (const { skip, limit } of pages) {
            const expected = sorted.slice(skip, limit ? skip + limit : undefined);
            const found = await log.find(filter, { session, sort: { _id: direction }, skip, limit });
            expect(found, JSON.stringify({ filter, direction, skip, limit })).toEqual(expected);
          }
          expect(await log.findOne(filter, { session, sort: { _id: direction } })).toEqual(sorted[0] ?? null);
        }
      }
    };
    await expectSorted();
    await engine.withTransaction(async (session) => {
      await log.insertOne({ _id: 81, kind: "k1", n: 4 }, { session });
      await log.deleteOne({ _id: 3 }, { session });
      await expectSorted(session);
    });
    // An `_id` below the highest one: natural order is no longer `_id` order, and sorting takes over.
    await log.insertOne({ _id: 0.5, kind: "k1", n: 4 });
    await expectSorted();
    await engine.close();
  });

  it("reads a range on Dates through an index, finding what a scan finds as documents come, change and go", async () => {
    const { engine } = await setUp();
    type Dated = { _id: number; at?: unknown; n: number };
    const indexed = engine.collection<Dated>("dated_indexed");
    const plain = engine.collection<Dated>("dated_plain");
    await indexed.createIndex({ at: 1 });
    const day = (d: number) => new Date(Date.UTC(2026, 0, 1 + d));
    const random = rng(5);
    const valueOf = (pick: number): unknown =>
      [day(random(30)), day(random(30)), day(random(30)), [day(random(30)), day(random(30))], "2026-01-05", 7, null, undefined][pick];
    const ranges = [
      { $lt: day(10) },
      { $lte: day(10) },
      { $gte: day(20) },
      { $gt: day(5), $lt: day(15) },
      { $gte: day(12), $lte: day(12) },
      { $gt: day(20), $lt: day(10) },
      { $lt: day(40) },
    ];
    const expectSame = async (session?: StoreSession) => {
      for (const range of ranges) {
        const [fromIndex, fromScan] = await Promise.all([indexed.find({ at: range }, { session }), plain.find({ at: range }, { session })]);
        expect(fromIndex, JSON.stringify(range)).toEqual(fromScan);
        expect(await indexed.countDocuments({ at: range, n: { $gt: 1 } }, { session })).toBe(fromScan.filter((doc) => doc.n > 1).length);
      }
    };
    for (let step = 0; step < 600; step++) {
      const id = random(120);
      const action = random(5);
      const at = valueOf(random(8));
      const n = random(4);
      for (const collection of [indexed, plain]) {
        if (action <= 1) await collection.replaceOne({ _id: id }, at === undefined ? { _id: id, n } : { _id: id, at, n }, { upsert: true });
        else if (action === 2) await collection.updateOne({ _id: id }, { $set: { at: day(n * 7) } });
        else if (action === 3) await collection.deleteOne({ _id: id });
        // A sweep: many of the oldest go at once (and the index compacts what it marked).
        else await collection.deleteMany({ at: { $lt: day(n * 5) } });
      }
    }
    await expectSame();
    await engine.withTransaction(async (session) => {
      for (const collection of [indexed, plain]) {
        await collection.insertOne({ _id: 1000, at: day(3), n: 2 }, { session });
        await collection.updateMany({ at: { $gte: day(25) } }, { $set: { at: day(1) } }, { session });
      }
      await expectSame(session);
    });
    await expectSame();
    await engine.close();
  });

  it("keeps its lookups across a restart, rebuilt from the snapshot and the journal", async () => {
    const { engine, indexed, plain } = await setUp();
    const random = rng(3);
    for (let i = 0; i < 50; i++) {
      const doc = item(random, `i${i}`);
      await indexed.insertOne(doc);
      await plain.insertOne(doc);
    }
    const before = await Promise.all(queries.map((filter) => indexed.find(filter)));
    const dir = dirs.at(-1)!;
    await engine.close();
    const reopened = await createEmbeddedEngine({ dir });
    expect(await Promise.all(queries.map((filter) => reopened.collection<Item>("indexed").find(filter)))).toEqual(before);
    await expectSameAnswers(reopened.collection("indexed"), reopened.collection("plain"));
    await reopened.close();
  });
});
