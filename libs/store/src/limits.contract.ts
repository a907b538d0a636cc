import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotReady, toVexilError } from "@vexil/errors";
import type { Collection, StoreEngine } from "./collection.js";
import { DuplicateKeyError, IndexCollisionError, StoreBusyError } from "./errors.js";

interface Doc {
  _id: string | number;
  name?: string;
  n?: number;
  tags?: string[];
  state?: string;
  blob?: string;
}

const MiB = 1024 * 1024;

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * What a real server shows beyond the small cases: reads past the first batch of a cursor (101
 * documents), inside transactions and out; a large `$in`; `insertMany` over 16 MiB; unique
 * indexes over data that already collides; integers past Int32; majority reads; a transaction
 * that cannot commit in time.
 */
export function describeLimitsContract(name: string, makeEngine: () => Promise<StoreEngine>): void {
  describe(`Limits a real server shows: ${name}`, () => {
    let engine: StoreEngine;
    const run = randomUUID().slice(0, 8);
    let count = 0;
    const fresh = (): Collection<Doc> => engine.collection<Doc>(`limits_${run}_${++count}`);
    const numbered = async (n: number): Promise<Collection<Doc>> => {
      const c = fresh();
      await c.insertMany(Array.from({ length: n }, (_, i) => ({ _id: i, name: `doc-${String(i).padStart(4, "0")}`, n: i % 7 })));
      return c;
    };
    const ids = (docs: Doc[]) => docs.map((doc) => doc._id);

    beforeAll(async () => {
      engine = await makeEngine();
    });
    afterAll(async () => {
      await engine?.close();
    });

    it("reads past a cursor's first batch, inside a transaction and out, whole and in batches", async () => {
      const c = await numbered(250);
      const all = Array.from({ length: 250 }, (_, i) => i);
      expect(ids(await c.find({}, { sort: { _id: 1 } }))).toEqual(all);
      expect(ids(await c.find({}, { sort: { name: -1 }, skip: 90, limit: 30 }))).toEqual(all.slice().reverse().slice(90, 120));
      expect(await c.countDocuments({ n: 3 })).toBe(36);
      await engine.withTransaction(async (session) => {
        await c.insertOne({ _id: 250, name: "doc-0250", n: 5 }, { session });
        expect(ids(await c.find({}, { sort: { _id: 1 }, session }))).toEqual([...all, 250]);
        const batches: number[] = [];
        for await (const batch of c.findInBatches({}, { session, batchSize: 101, sort: { _id: 1 } })) batches.push(batch.length);
        expect(batches).toEqual([101, 101, 49]);
      });
      const outside: number[] = [];
      for await (const batch of c.findInBatches({ n: { $ne: 5 } }, { batchSize: 101, projection: { _id: 1 } })) {
        outside.push(...ids(batch).map(Number));
        expect(batch.every((doc) => Object.keys(doc).length === 1)).toBe(true);
      }
      expect(outside.sort((a, b) => a - b)).toEqual(all.filter((i) => i % 7 !== 5));
      await engine.withSnapshot(async (session) => {
        const sizes: number[] = [];
        for await (const batch of c.findInBatches({}, { session, batchSize: 200 })) sizes.push(batch.length);
        expect(sizes).toEqual([200, 51]);
      });
    });

    it("answers a large $in, and deletes by one", async () => {
      const c = await numbered(3000);
      const wanted = Array.from({ length: 20_000 }, (_, i) => i * 2);
      expect(await c.countDocuments({ _id: { $in: wanted } })).toBe(1500);
      const names = Array.from({ length: 5000 }, (_, i) => `doc-${String(i).padStart(4, "0")}`);
      expect((await c.find({ name: { $in: names } }, { projection: { _id: 1 } })).length).toBe(3000);
      expect((await c.deleteMany({ _id: { $in: wanted } })).deletedCount).toBe(1500);
      expect(await c.countDocuments({})).toBe(1500);
    });

    // Tens of MiB serialized and journaled: seconds on a loaded machine.
    it("inserts over 16 MiB in one insertMany, all or nothing, and names a collision in it", { timeout: 180_000 }, async () => {
      const c = fresh();
      await c.createIndex({ name: 1 }, { unique: true });
      const big = (i: number) => ({ _id: i, name: `big-${i}`, blob: "x".repeat(MiB) });
      await c.insertMany(Array.from({ length: 18 }, (_, i) => big(i)));
      expect(await c.countDocuments({})).toBe(18);
      const err = await c
        .insertMany([...Array.from({ length: 17 }, (_, i) => big(100 + i)), { _id: 200, name: "big-3" }])
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DuplicateKeyError);
      expect(err).toMatchObject({ index: "name_1", keyPattern: { name: 1 }, keyValue: { name: "big-3" } });
      expect((err as Error).message).toMatch(new RegExp(c.name));
      expect(await c.countDocuments({})).toBe(18);
    });

    it("refuses a unique index over data that already collides, naming the documents, and builds none", async () => {
      const c = fresh();
      await c.insertMany([
        { _id: 1, name: "twin", state: "Draft", tags: ["a", "a"] },
        { _id: 2, name: "twin", state: "Draft", tags: ["b"] },
        { _id: 3, name: "twin", state: "Applied", tags: ["b", "c"] },
        { _id: 4, name: "solo", state: "Draft" },
      ]);
      // A non-unique index over the same data is fine.
      expect(await c.createIndex({ name: 1 })).toBe("name_1");
      const err = await c.createIndex({ name: 1, state: 1 }, { unique: true }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IndexCollisionError);
      const collision = (err as IndexCollisionError).collisions;
      expect(collision).toHaveLength(1);
      expect(collision[0]!.keyValue).toEqual({ name: "twin", state: "Draft" });
      expect([...collision[0]!.ids].sort()).toEqual([1, 2]);
      expect((err as Error).message).toMatch(/name_1_state_1.*twin.*Merge or rename/);
      // Multikey: one document repeating a value is no collision, two sharing one are.
      const multikey = await c.createIndex({ tags: 1 }, { unique: true }).catch((e: unknown) => e);
      expect((multikey as IndexCollisionError).collisions.map((one) => one.keyValue)).toEqual([{ tags: "b" }]);
      // Nothing was built: a further duplicate is accepted; once the data is fixed, the index is made.
      await c.insertOne({ _id: 5, name: "twin", state: "Draft" });
      await c.updateMany({ _id: { $in: [2, 5] } }, { $set: { state: "Merged" } });
      await c.updateOne({ _id: 5 }, { $set: { name: "renamed" } });
      expect(await c.createIndex({ name: 1, state: 1 }, { unique: true })).toBe("name_1_state_1");
      await expect(c.insertOne({ _id: 6, name: "twin", state: "Draft" })).rejects.toBeInstanceOf(DuplicateKeyError);
    });

    it("keeps counting past Int32 with $inc and sequences", async () => {
      const c = fresh();
      await c.insertMany([
        { _id: "up", n: 2_147_483_647 },
        { _id: "down", n: -2_147_483_648 },
      ]);
      await c.updateOne({ _id: "up" }, { $inc: { n: 1 } });
      await c.updateOne({ _id: "down" }, { $inc: { n: -1 } });
      expect(await c.find({}, { sort: { n: 1 } })).toEqual([
        { _id: "down", n: -2_147_483_649 },
        { _id: "up", n: 2_147_483_648 },
      ]);
      const sequence = `seq_${run}_int32`;
      await engine.raiseSequences({ [sequence]: 2_147_483_647 });
      expect(await engine.nextSequence(sequence)).toBe(2_147_483_648);
      expect(await engine.withTransaction((session) => engine.nextSequence(sequence, { session }))).toBe(2_147_483_649);
    });

    it("reads what it wrote with a majority read", async () => {
      const c = fresh();
      await c.insertOne({ _id: 1, name: "acknowledged" });
      expect(await c.find({}, { readConcern: "majority" })).toEqual([{ _id: 1, name: "acknowledged" }]);
      expect(await c.findOne({ _id: 1 }, { readConcern: "majority", projection: { name: 1 } })).toEqual({ _id: 1, name: "acknowledged" });
    });

    it("gives up on a transaction that cannot commit in time with StoreBusyError (503), writing none of it", async () => {
      const c = fresh();
      const log = fresh();
      await c.insertOne({ _id: "hot", n: 0 });
      const holding = gate();
      const release = gate();
      const first = engine.withTransaction(async (session) => {
        await c.updateOne({ _id: "hot" }, { $set: { name: "first" } }, { session });
        holding.open();
        await release.promise;
      });
      await holding.promise;
      const err = await engine
        .withTransaction(
          async (session) => {
            await log.insertOne({ _id: randomUUID() }, { session });
            await c.updateOne({ _id: "hot" }, { $inc: { n: 1 } }, { session });
          },
          { timeoutMs: 300 },
        )
        .catch((e: unknown) => e);
      release.open();
      await first;
      expect(err).toBeInstanceOf(StoreBusyError);
      expect(err).toBeInstanceOf(NotReady);
      expect(toVexilError(err).status).toBe(503);
      expect(await c.findOne({ _id: "hot" })).toEqual({ _id: "hot", n: 0, name: "first" });
      expect(await log.countDocuments({})).toBe(0);
    });
  });
}
