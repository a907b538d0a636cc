import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Collection, StoreEngine } from "./collection.js";
import { seed, type Item } from "./collection.contract.js";
import { DuplicateKeyError } from "./errors.js";

/**
 * What keeps data whole on every store engine: unique keys, transactions that commit or roll back
 * together, and sequences. Like the collection contract: one engine, a collection per test.
 */
export function describeTransactionContract(name: string, makeEngine: () => Promise<StoreEngine>): void {
  describe(`Keys, transactions and sequences: ${name}`, () => {
    let engine: StoreEngine;
    const run = randomUUID().slice(0, 8);
    let count = 0;
    const fresh = (): Collection<Item> => engine.collection<Item>(`transactions_${run}_${++count}`);
    const seeded = async (): Promise<Collection<Item>> => {
      const c = fresh();
      await c.insertMany(structuredClone(seed));
      return c;
    };
    const ids = (docs: { _id: unknown }[]) => docs.map((doc) => doc._id);

    beforeAll(async () => {
      engine = await makeEngine();
    });
    afterAll(async () => {
      await engine?.close();
    });

    describe("unique indexes", () => {
      it("names indexes like MongoDB and tolerates creating the same one twice", async () => {
        const c = fresh();
        expect(await c.createIndex({ name: 1 }, { unique: true })).toBe("name_1");
        expect(await c.createIndex({ name: 1 }, { unique: true })).toBe("name_1");
        expect(await c.createIndex({ project: 1, n: -1 })).toBe("project_1_n_-1");
        expect(await c.createIndex({ n: 1 }, { name: "by_n" })).toBe("by_n");
      });

      it("rejects a duplicate on a single-field unique index, on insert and on update", async () => {
        const c = await seeded();
        await c.createIndex({ name: 1 }, { unique: true, name: "unique_name" });
        const err = await c.insertOne({ _id: 10, name: "alpha" }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(DuplicateKeyError);
        expect((err as DuplicateKeyError).index).toBe("unique_name");
        expect((err as DuplicateKeyError).keyPattern).toEqual({ name: 1 });
        await expect(c.updateOne({ _id: 2 }, { $set: { name: "alpha" } })).rejects.toBeInstanceOf(DuplicateKeyError);
        await expect(c.replaceOne({ _id: 3 }, { name: "alpha" })).rejects.toBeInstanceOf(DuplicateKeyError);
        await expect(c.updateOne({ _id: 11 }, { $set: { name: "beta" } }, { upsert: true })).rejects.toBeInstanceOf(DuplicateKeyError);
        expect(await c.countDocuments({})).toBe(4);
        expect((await c.findOne({ _id: 2 }))?.name).toBe("beta");
      });

      it("frees a key when its holder changes or goes", async () => {
        const c = await seeded();
        await c.createIndex({ name: 1 }, { unique: true });
        await c.updateOne({ _id: 1 }, { $set: { name: "renamed" } });
        await c.insertOne({ _id: 10, name: "alpha" });
        await c.deleteOne({ _id: 2 });
        await c.insertOne({ _id: 11, name: "beta" });
        expect(await c.countDocuments({ name: { $in: ["alpha", "beta", "renamed"] } })).toBe(3);
      });

      it("enforces compound unique keys on the combination only", async () => {
        const c = fresh();
        await c.createIndex({ project: 1, name: 1 }, { unique: true });
        await c.insertOne({ _id: 1, project: "p1", name: "same" });
        await c.insertOne({ _id: 2, project: "p2", name: "same" });
        await c.insertOne({ _id: 3, project: "p1", name: "other" });
        const err = await c.insertOne({ _id: 4, project: "p2", name: "same" }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(DuplicateKeyError);
        expect((err as DuplicateKeyError).keyPattern).toEqual({ project: 1, name: 1 });
        await expect(c.updateOne({ _id: 3 }, { $set: { name: "same" } })).rejects.toBeInstanceOf(DuplicateKeyError);
        expect(await c.countDocuments({})).toBe(3);
      });

      it("refuses to create a unique index over documents that already collide", async () => {
        const c = fresh();
        await c.insertMany([
          { _id: 1, name: "twin" },
          { _id: 2, name: "twin" },
        ]);
        await expect(c.createIndex({ name: 1 }, { unique: true })).rejects.toBeInstanceOf(DuplicateKeyError);
        await c.insertOne({ _id: 3, name: "twin" });
        expect(await c.countDocuments({ name: "twin" })).toBe(3);
      });
    });

    describe("transactions", () => {
      it("commits writes to several collections together and returns the callback's value", async () => {
        const items = fresh();
        const events = fresh();
        const result = await engine.withTransaction(async (session) => {
          await items.insertOne({ _id: "s1", name: "segment" }, { session });
          await events.insertOne({ _id: "e1", name: "segment-created" }, { session });
          await items.updateOne({ _id: "s1" }, { $set: { n: 1 } }, { session });
          return "done";
        });
        expect(result).toBe("done");
        expect(await items.findOne({ _id: "s1" })).toEqual({ _id: "s1", name: "segment", n: 1 });
        expect(await events.countDocuments({})).toBe(1);
      });

      it("shows staged writes to the session and not outside it before commit", async () => {
        const c = fresh();
        await engine.withTransaction(async (session) => {
          await c.insertOne({ _id: "t", name: "staged" }, { session });
          expect(await c.findOne({ _id: "t" }, { session })).toEqual({ _id: "t", name: "staged" });
          expect(await c.countDocuments({}, { session })).toBe(1);
          expect(await c.findOne({ _id: "t" })).toBeNull();
        });
        expect(await c.countDocuments({})).toBe(1);
      });

      it("rolls everything back when the callback throws", async () => {
        const c = await seeded();
        const events = fresh();
        await expect(
          engine.withTransaction(async (session) => {
            await c.insertOne({ _id: 10, name: "ghost" }, { session });
            await c.updateMany({}, { $set: { touched: true } }, { session });
            await c.deleteOne({ _id: 1 }, { session });
            await events.insertOne({ _id: "e", name: "ghost-created" }, { session });
            throw new Error("boom");
          }),
        ).rejects.toThrow("boom");
        expect(ids(await c.find({}, { sort: { _id: 1 } }))).toEqual([1, 2, 3, 4]);
        expect(await c.countDocuments({ touched: true })).toBe(0);
        expect(await events.countDocuments({})).toBe(0);
      });

      it("rolls back and throws DuplicateKeyError on a collision inside the transaction", async () => {
        const c = fresh();
        await c.createIndex({ project: 1, name: 1 }, { unique: true });
        await c.insertOne({ _id: 1, project: "p", name: "taken" });
        await expect(
          engine.withTransaction(async (session) => {
            await c.insertOne({ _id: 2, project: "p", name: "fresh" }, { session });
            await c.insertOne({ _id: 3, project: "p", name: "fresh" }, { session });
          }),
        ).rejects.toBeInstanceOf(DuplicateKeyError);
        expect(ids(await c.find({}))).toEqual([1]);
      });

      it("lets a transaction reuse a key it freed", async () => {
        const c = fresh();
        await c.createIndex({ name: 1 }, { unique: true });
        await c.insertOne({ _id: 1, name: "key" });
        await engine.withTransaction(async (session) => {
          await c.updateOne({ _id: 1 }, { $set: { name: "old-key" } }, { session });
          await c.insertOne({ _id: 2, name: "key" }, { session });
        });
        expect(await c.find({}, { sort: { _id: 1 } })).toEqual([
          { _id: 1, name: "old-key" },
          { _id: 2, name: "key" },
        ]);
        await expect(c.insertOne({ _id: 3, name: "key" })).rejects.toBeInstanceOf(DuplicateKeyError);
      });
    });

    describe("nextSequence", () => {
      it("starts at 1 and counts each name separately", async () => {
        const a = `seq_${run}_a`;
        const b = `seq_${run}_b`;
        expect(await engine.nextSequence(a)).toBe(1);
        expect(await engine.nextSequence(a)).toBe(2);
        expect(await engine.nextSequence(b)).toBe(1);
      });

      it("works inside a transaction and is not rolled back with it", async () => {
        const name = `seq_${run}_transaction`;
        await expect(
          engine.withTransaction(async () => {
            await engine.nextSequence(name);
            throw new Error("abort");
          }),
        ).rejects.toThrow("abort");
        expect(await engine.nextSequence(name)).toBe(2);
      });

      it("hands out distinct consecutive values to concurrent callers", async () => {
        const name = `seq_${run}_concurrent`;
        const values = await Promise.all(Array.from({ length: 40 }, () => engine.nextSequence(name)));
        expect([...values].sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      });
    });
  });
}
