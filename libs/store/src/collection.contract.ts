import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Collection, StoreEngine } from "./collection.js";
import { DuplicateKeyError } from "./errors.js";

export interface Item {
  _id: string | number;
  name: string;
  project?: string;
  n?: number;
  tags?: string[];
  items?: { k: string; v: number }[];
  meta?: { owner?: string; level?: number };
  at?: Date;
  createdAt?: Date;
}

export const seed: Item[] = [
  { _id: 1, name: "alpha", project: "p1", n: 1, tags: ["a", "b"], items: [{ k: "x", v: 1 }], meta: { owner: "ann" } },
  { _id: 2, name: "beta", project: "p1", n: 2, tags: ["b"], items: [{ k: "y", v: 5 }], meta: { owner: "bob", level: 2 } },
  { _id: 3, name: "gamma", project: "p2", n: 3, tags: [], items: [] },
  { _id: 4, name: "delta", project: "p2", n: 4, meta: { level: 7 } },
];

/**
 * The behaviour every store engine must share: reads, writes, copies and dates (unique keys,
 * transactions and sequences are in transactions.contract.ts). The suite opens one engine and gives
 * each test its own collection name, so it can run against a shared database.
 */
export function describeCollectionContract(name: string, makeEngine: () => Promise<StoreEngine>): void {
  describe(`Collection contract: ${name}`, () => {
    let engine: StoreEngine;
    const run = randomUUID().slice(0, 8);
    let count = 0;
    const fresh = <T extends Item = Item>(): Collection<T> => engine.collection<T>(`contract_${run}_${++count}`);
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

    it("answers ping", async () => {
      await expect(engine.ping()).resolves.toBeUndefined();
    });

    describe("insert and read", () => {
      it("inserts one document and reads it back by _id", async () => {
        const c = fresh();
        await expect(c.insertOne({ _id: "a", name: "alpha" })).resolves.toEqual({ insertedId: "a" });
        expect(await c.findOne({ _id: "a" })).toEqual({ _id: "a", name: "alpha" });
        expect(await c.findOne({ _id: "missing" })).toBeNull();
      });

      it("keeps string and number ids apart", async () => {
        const c = fresh();
        await c.insertMany([
          { _id: 1, name: "number" },
          { _id: "1", name: "string" },
        ]);
        expect((await c.findOne({ _id: 1 }))?.name).toBe("number");
        expect((await c.findOne({ _id: "1" }))?.name).toBe("string");
      });

      it("rejects a second document with the same _id with DuplicateKeyError", async () => {
        const c = fresh();
        await c.insertOne({ _id: "a", name: "first" });
        const err = await c.insertOne({ _id: "a", name: "second" }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(DuplicateKeyError);
        expect((err as DuplicateKeyError).index).toBe("_id_");
        expect((await c.findOne({ _id: "a" }))?.name).toBe("first");
      });

      it("inserts many and counts them", async () => {
        const c = fresh();
        await expect(c.insertMany(structuredClone(seed))).resolves.toEqual({ insertedCount: 4, insertedIds: [1, 2, 3, 4] });
        expect(await c.countDocuments({})).toBe(4);
        expect(await c.countDocuments({ project: "p1" })).toBe(2);
      });

      it("rejects insertMany with a duplicate _id", async () => {
        const c = fresh();
        await c.insertOne({ _id: 1, name: "existing" });
        await expect(c.insertMany([{ _id: 1, name: "again" }])).rejects.toBeInstanceOf(DuplicateKeyError);
        expect(await c.countDocuments({})).toBe(1);
      });
    });

    describe("find", () => {
      it("returns every document of an empty filter, and [] when nothing matches", async () => {
        const c = await seeded();
        expect((await c.find({})).length).toBe(4);
        expect(await c.find({ name: "nobody" })).toEqual([]);
        expect(await fresh().find({})).toEqual([]);
      });

      it("sorts, skips and limits", async () => {
        const c = await seeded();
        expect(ids(await c.find({}, { sort: { n: -1 } }))).toEqual([4, 3, 2, 1]);
        expect(ids(await c.find({}, { sort: { project: 1, name: 1 } }))).toEqual([1, 2, 4, 3]);
        expect(ids(await c.find({}, { sort: { n: 1 }, skip: 1, limit: 2 }))).toEqual([2, 3]);
        expect(ids(await c.find({}, { sort: { n: 1 }, skip: 10 }))).toEqual([]);
        // A field some documents lack, or hold other kinds of values in: missing first, numbers before strings.
        expect(ids(await c.find({}, { sort: { "meta.level": -1, _id: 1 } }))).toEqual([4, 2, 1, 3]);
        await c.updateOne({ _id: 3 }, { $set: { n: "three" } });
        expect(ids(await c.find({}, { sort: { n: -1 } }))).toEqual([3, 4, 2, 1]);
        expect((await c.findOne({}, { sort: { n: -1 } }))?._id).toBe(3);
      });

      it("projects by inclusion and exclusion", async () => {
        const c = await seeded();
        expect(await c.find({ _id: 1 }, { projection: { name: 1 } })).toEqual([{ _id: 1, name: "alpha" }]);
        expect(await c.find({ _id: 1 }, { projection: { name: 1, _id: 0 } })).toEqual([{ name: "alpha" }]);
        const [excluded] = await c.find<Partial<Item>>({ _id: 2 }, { projection: { items: 0, tags: 0, meta: 0 } });
        expect(excluded).toEqual({ _id: 2, name: "beta", project: "p1", n: 2 });
        expect(await c.findOne({ _id: 2 }, { projection: { "meta.owner": 1 } })).toEqual({ _id: 2, meta: { owner: "bob" } });
      });

      it("findOne picks the first document of a sort", async () => {
        const c = await seeded();
        expect((await c.findOne({ project: "p2" }, { sort: { n: -1 } }))?._id).toBe(4);
      });

      it.each([
        ["$eq", { name: { $eq: "beta" } }, [2]],
        ["$ne", { project: { $ne: "p1" } }, [3, 4]],
        ["$in", { name: { $in: ["alpha", "gamma", "nobody"] } }, [1, 3]],
        ["$nin", { name: { $nin: ["alpha", "gamma"] } }, [2, 4]],
        ["$gt/$lte", { n: { $gt: 1, $lte: 3 } }, [2, 3]],
        ["$regex string", { name: { $regex: "^[ab]" } }, [1, 2]],
        ["$regex with options", { name: { $regex: "^DEL", $options: "i" } }, [4]],
        ["RegExp literal", { name: /mm/ }, [3]],
        ["$and", { $and: [{ project: "p1" }, { n: { $gte: 2 } }] }, [2]],
        ["$or", { $or: [{ name: "alpha" }, { n: 4 }] }, [1, 4]],
        ["$exists true", { meta: { $exists: true } }, [1, 2, 4]],
        ["$exists false", { "meta.level": { $exists: false } }, [1, 3]],
        ["dotted path", { "meta.owner": "bob" }, [2]],
        ["array contains", { tags: "b" }, [1, 2]],
        ["$all", { tags: { $all: ["a", "b"] } }, [1]],
        ["$size", { tags: { $size: 0 } }, [3]],
        ["$elemMatch", { items: { $elemMatch: { k: "y", v: { $gt: 3 } } } }, [2]],
        ["dotted path into an array", { "items.k": "x" }, [1]],
        ["$not", { n: { $not: { $gt: 2 } } }, [1, 2]],
      ])("filters with %s", async (_label, filter, expected) => {
        const c = await seeded();
        expect(ids(await c.find(filter, { sort: { _id: 1 } }))).toEqual(expected);
        expect(await c.countDocuments(filter)).toBe(expected.length);
      });

      it("rejects an unknown query operator", async () => {
        const c = await seeded();
        await expect(c.find({ name: { $bogus: 1 } })).rejects.toThrow();
      });
    });

    describe("update", () => {
      it("applies $set, $unset, $inc, $push, $pull and $addToSet", async () => {
        const c = await seeded();
        const result = await c.updateOne(
          { _id: 1 },
          {
            $set: { name: "ALPHA", "meta.level": 9 },
            $unset: { project: "" },
            $inc: { n: 10 },
            $push: { items: { k: "z", v: 3 } },
            $addToSet: { tags: "c" },
          },
        );
        expect(result).toEqual({ matchedCount: 1, modifiedCount: 1, upsertedId: null });
        await c.updateOne({ _id: 1 }, { $pull: { tags: "a" }, $addToSet: { "meta.roles": "x" } });
        await c.updateOne({ _id: 1 }, { $addToSet: { tags: "b" }, $pull: { items: { k: "x" } } });
        expect(await c.findOne({ _id: 1 })).toEqual({
          _id: 1,
          name: "ALPHA",
          n: 11,
          tags: ["b", "c"],
          items: [{ k: "z", v: 3 }],
          meta: { owner: "ann", level: 9, roles: ["x"] },
        });
      });

      it("supports $push with $each and the positional $ operator", async () => {
        const c = await seeded();
        await c.updateOne({ _id: 2, "items.k": "y" }, { $set: { "items.$.v": 50 }, $push: { tags: { $each: ["c", "d"] } } });
        expect(await c.findOne({ _id: 2 }, { projection: { items: 1, tags: 1 } })).toEqual({
          _id: 2,
          items: [{ k: "y", v: 50 }],
          tags: ["b", "c", "d"],
        });
      });

      it("counts matched and modified separately, and an unmatched filter changes nothing", async () => {
        const c = await seeded();
        expect(await c.updateOne({ _id: 2 }, { $set: { name: "beta" } })).toEqual({
          matchedCount: 1,
          modifiedCount: 0,
          upsertedId: null,
        });
        expect(await c.updateOne({ _id: 99 }, { $set: { name: "x" } })).toEqual({
          matchedCount: 0,
          modifiedCount: 0,
          upsertedId: null,
        });
        expect(await c.countDocuments({})).toBe(4);
      });

      it("updateOne changes only the first match; updateMany changes all", async () => {
        const c = await seeded();
        expect((await c.updateOne({ project: "p1" }, { $set: { flag: 1 } })).modifiedCount).toBe(1);
        expect(await c.countDocuments({ flag: 1 })).toBe(1);
        expect(await c.updateMany({ project: { $in: ["p1", "p2"] } }, { $set: { flag: 1 } })).toEqual({
          matchedCount: 4,
          modifiedCount: 3,
          upsertedId: null,
        });
        expect(await c.countDocuments({ flag: 1 })).toBe(4);
      });

      it("upserts from the filter's equalities and $setOnInsert, only when nothing matches", async () => {
        const c = fresh();
        const first = await c.updateOne(
          { _id: "k", project: "p9" },
          { $set: { name: "new" }, $setOnInsert: { n: 1 }, $inc: { hits: 1 } },
          { upsert: true },
        );
        expect(first).toEqual({ matchedCount: 0, modifiedCount: 0, upsertedId: "k" });
        const second = await c.updateOne(
          { _id: "k", project: "p9" },
          { $set: { name: "newer" }, $setOnInsert: { n: 100 }, $inc: { hits: 1 } },
          { upsert: true },
        );
        expect(second).toEqual({ matchedCount: 1, modifiedCount: 1, upsertedId: null });
        expect(await c.findOne({ _id: "k" })).toEqual({ _id: "k", project: "p9", name: "newer", n: 1, hits: 2 });
      });

      it("gives an upsert without an _id a string _id", async () => {
        const c = fresh();
        const result = await c.updateOne({ name: "anonymous" }, { $set: { n: 1 } }, { upsert: true });
        expect(typeof result.upsertedId).toBe("string");
        expect(await c.findOne({ _id: result.upsertedId! })).toEqual({ _id: result.upsertedId, name: "anonymous", n: 1 });
      });

      it("rejects an unknown update operator and changes nothing", async () => {
        const c = await seeded();
        await expect(c.updateOne({ _id: 1 }, { $bogus: { n: 1 } } as never)).rejects.toThrow();
        expect((await c.findOne({ _id: 1 }))?.n).toBe(1);
      });

      it("rejects an update that changes _id", async () => {
        const c = await seeded();
        await expect(c.updateOne({ _id: 1 }, { $set: { _id: 100 } })).rejects.toThrow();
        expect(await c.findOne({ _id: 1 })).not.toBeNull();
      });
    });

    describe("findOneAndUpdate", () => {
      it("returns the document before the update by default, or after when asked", async () => {
        const c = await seeded();
        expect((await c.findOneAndUpdate({ _id: 1 }, { $inc: { n: 1 } }))?.n).toBe(1);
        expect((await c.findOneAndUpdate({ _id: 1 }, { $inc: { n: 1 } }, { returnDocument: "after" }))?.n).toBe(3);
        expect((await c.findOne({ _id: 1 }))?.n).toBe(3);
      });

      it("returns null when nothing matches, and upserts when asked", async () => {
        const c = fresh();
        expect(await c.findOneAndUpdate({ _id: "x" }, { $set: { name: "x" } })).toBeNull();
        expect(await c.countDocuments({})).toBe(0);
        expect(await c.findOneAndUpdate({ _id: "x" }, { $set: { name: "x" } }, { upsert: true })).toBeNull();
        expect(await c.findOneAndUpdate({ _id: "y" }, { $set: { name: "y" } }, { upsert: true, returnDocument: "after" })).toEqual({
          _id: "y",
          name: "y",
        });
        expect(await c.countDocuments({})).toBe(2);
      });

      it("honours sort and projection", async () => {
        const c = await seeded();
        const doc = await c.findOneAndUpdate(
          { project: "p1" },
          { $set: { claimed: true } },
          { sort: { n: -1 }, projection: { name: 1 }, returnDocument: "after" },
        );
        expect(doc).toEqual({ _id: 2, name: "beta" });
        expect(await c.countDocuments({ claimed: true })).toBe(1);
      });
    });

    describe("replace and delete", () => {
      it("replaces the whole document but keeps _id", async () => {
        const c = await seeded();
        expect(await c.replaceOne({ name: "alpha" }, { name: "omega", n: 0 })).toEqual({
          matchedCount: 1,
          modifiedCount: 1,
          upsertedId: null,
        });
        expect(await c.findOne({ _id: 1 })).toEqual({ _id: 1, name: "omega", n: 0 });
        expect((await c.replaceOne({ _id: 99 }, { name: "none" })).matchedCount).toBe(0);
      });

      it("upserts a replacement with the filter's _id", async () => {
        const c = fresh();
        expect(await c.replaceOne({ _id: "r" }, { name: "r" }, { upsert: true })).toEqual({
          matchedCount: 0,
          modifiedCount: 0,
          upsertedId: "r",
        });
        expect(await c.findOne({ _id: "r" })).toEqual({ _id: "r", name: "r" });
      });

      it("rejects a replacement that changes _id", async () => {
        const c = await seeded();
        await expect(c.replaceOne({ _id: 1 }, { _id: 5, name: "moved" })).rejects.toThrow();
        expect((await c.findOne({ _id: 1 }))?.name).toBe("alpha");
      });

      it("deletes one or many and reports how many", async () => {
        const c = await seeded();
        expect(await c.deleteOne({ project: "p1" })).toEqual({ deletedCount: 1 });
        expect(await c.deleteOne({ _id: 99 })).toEqual({ deletedCount: 0 });
        expect(await c.deleteMany({ n: { $gte: 3 } })).toEqual({ deletedCount: 2 });
        expect(await c.countDocuments({})).toBe(1);
        expect(await c.deleteMany({})).toEqual({ deletedCount: 1 });
        expect(await c.find({})).toEqual([]);
      });
    });

    describe("copies, not references", () => {
      it("is not changed by mutating what was inserted or what was read", async () => {
        const c = fresh();
        const doc: Item = { _id: 1, name: "original", tags: ["a"], meta: { owner: "ann" } };
        await c.insertOne(doc);
        doc.name = "mutated input";
        doc.tags!.push("input");
        const read = (await c.findOne({ _id: 1 }))!;
        read.tags!.push("read");
        read.meta!.owner = "mallory";
        const [listed] = await c.find({});
        listed.name = "mutated list";
        const after = (await c.findOneAndUpdate({ _id: 1 }, { $set: { n: 1 } }, { returnDocument: "after" }))!;
        after.tags!.length = 0;
        expect(await c.findOne({ _id: 1 })).toEqual({ _id: 1, name: "original", tags: ["a"], meta: { owner: "ann" }, n: 1 });
      });

      it("hands out dates and nested arrays as copies too", async () => {
        const c = fresh();
        const stored = { _id: 1, name: "dated", at: new Date(1000), items: [{ k: "a", v: 1 }], meta: { seen: [new Date(2000)] } };
        await c.insertOne(structuredClone(stored) as Item);
        const read = (await c.findOne({ _id: 1 })) as Item & { meta: { seen: Date[] } };
        read.at!.setTime(0);
        read.items![0]!.v = 99;
        read.meta.seen[0]!.setTime(0);
        expect(await c.findOne({ _id: 1 })).toEqual(stored);
      });

      it("is not changed by mutating an update's values afterwards", async () => {
        const c = await seeded();
        const tags = ["x"];
        await c.updateOne({ _id: 1 }, { $set: { tags } });
        tags.push("later");
        expect((await c.findOne({ _id: 1 }))?.tags).toEqual(["x"]);
      });
    });

    describe("dates", () => {
      it("stores and returns Date objects, also nested and set by updates", async () => {
        const c = fresh();
        const at = new Date("2024-05-06T07:08:09.123Z");
        await c.insertOne({ _id: 1, name: "dated", at, items: [], meta: {} });
        await c.updateOne({ _id: 1 }, { $set: { createdAt: new Date(0), "meta.seen": new Date(1000) } });
        const doc = (await c.findOne({ _id: 1 })) as Item & { meta: { seen: Date } };
        expect(doc.at).toBeInstanceOf(Date);
        expect(doc.at?.toISOString()).toBe(at.toISOString());
        expect(doc.createdAt).toEqual(new Date(0));
        expect(doc.meta.seen).toEqual(new Date(1000));
      });

      it("compares and sorts by dates", async () => {
        const c = fresh();
        await c.insertMany([
          { _id: 1, name: "old", at: new Date("2020-01-01T00:00:00Z") },
          { _id: 2, name: "new", at: new Date("2024-01-01T00:00:00Z") },
          { _id: 3, name: "mid", at: new Date("2022-01-01T00:00:00Z") },
        ]);
        expect(ids(await c.find({ at: { $gt: new Date("2021-01-01T00:00:00Z") } }, { sort: { at: 1 } }))).toEqual([3, 2]);
        expect(ids(await c.find({}, { sort: { at: -1 } }))).toEqual([2, 3, 1]);
      });
    });
  });
}
