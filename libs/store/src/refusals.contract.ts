import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Collection, StoreEngine, UpdateFilter } from "./collection.js";
import { DuplicateKeyError, OperationRefusedError } from "./errors.js";

interface Doc {
  _id: string | number;
  name?: string;
  n?: number;
  a?: unknown;
  params?: Record<string, unknown>;
  variants?: Record<string, number>;
}

/** Whatever the call, it fails with MongoDB's refusal: this name, code and message. */
async function refused(call: Promise<unknown>, codeName: string, code: number | undefined, message?: string | RegExp): Promise<void> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, `expected ${codeName}`).toBeInstanceOf(OperationRefusedError);
  expect(err).toMatchObject({ codeName, code });
  if (message !== undefined) expect((err as Error).message).toMatch(message);
}

/**
 * What MongoDB refuses, refused the same way on every engine (OperationRefusedError with MongoDB's
 * code, name and message), so a test on the embedded engine catches what MongoDB would: conflicting
 * update operators, updates without operators, unknown operators, empty field names, keys holding
 * U+0000, a second name for an index, and calls in a transaction after one failed.
 */
export function describeRefusalContract(name: string, makeEngine: () => Promise<StoreEngine>): void {
  describe(`What MongoDB refuses: ${name}`, () => {
    let engine: StoreEngine;
    const run = randomUUID().slice(0, 8);
    let count = 0;
    const fresh = async (): Promise<Collection<Doc>> => {
      const c = engine.collection<Doc>(`refusals_${run}_${++count}`);
      await c.insertOne({ _id: 1, name: "one", n: 1, params: {}, variants: { a: 1 } });
      return c;
    };
    const unchanged = async (c: Collection<Doc>) => {
      expect(await c.find({})).toEqual([{ _id: 1, name: "one", n: 1, params: {}, variants: { a: 1 } }]);
    };

    beforeAll(async () => {
      engine = await makeEngine();
    });
    afterAll(async () => {
      await engine?.close();
    });

    it("refuses $set and $setOnInsert on one path, and operators on a path and its parent, writing nothing", async () => {
      const c = await fresh();
      const both = { $set: { n: 2 }, $setOnInsert: { n: 0 } } as UpdateFilter<Doc>;
      const conflict = "Updating the path 'n' would create a conflict at 'n'";
      // Refused whether the upsert would insert or update: the server parses the update first.
      await refused(c.updateOne({ _id: 2 }, both, { upsert: true }), "ConflictingUpdateOperators", 40, conflict);
      await refused(c.updateOne({ _id: 1 }, both, { upsert: true }), "ConflictingUpdateOperators", 40, conflict);
      await refused(c.findOneAndUpdate({ _id: 2 }, both, { upsert: true }), "ConflictingUpdateOperators", 40, conflict);
      await refused(
        c.updateMany({}, { $set: { a: 1 }, $inc: { "a.b": 1 } } as UpdateFilter<Doc>),
        "ConflictingUpdateOperators",
        40,
        "Updating the path 'a.b' would create a conflict at 'a'",
      );
      await unchanged(c);
    });

    it("refuses an update without operators, a replacement with them, and an unknown operator", async () => {
      const c = await fresh();
      const noOperators = "Update document requires atomic operators";
      await refused(c.updateOne({ _id: 1 }, { name: "two" } as UpdateFilter<Doc>), "MongoInvalidArgumentError", undefined, noOperators);
      await refused(c.updateMany({}, {}), "MongoInvalidArgumentError", undefined, noOperators);
      await refused(c.findOneAndUpdate({ _id: 1 }, { n: 2 } as UpdateFilter<Doc>), "MongoInvalidArgumentError", undefined, noOperators);
      await refused(
        c.replaceOne({ _id: 1 }, { $set: { name: "two" } } as unknown as Doc),
        "MongoInvalidArgumentError",
        undefined,
        "Replacement document must not contain atomic operators",
      );
      await refused(c.replaceOne({ _id: 1 }, { name: "two", $weird: 1 } as unknown as Doc), "DollarPrefixedFieldName", 52);
      await refused(c.updateOne({ _id: 1 }, { $foo: { n: 1 } } as UpdateFilter<Doc>), "FailedToParse", 9, /^Unknown modifier: \$foo/);
      await unchanged(c);
    });

    it("refuses an empty field name in an update path, as a variant named '' would make", async () => {
      const c = await fresh();
      await refused(
        c.updateOne({ _id: 1 }, { $inc: { "variants.": 1 } }),
        "EmptyFieldName",
        56,
        "The update path 'variants.' contains an empty field name, which is not allowed.",
      );
      await refused(c.updateOne({ _id: 1 }, { $inc: { "variants..x": 1 } }), "EmptyFieldName", 56);
      await refused(c.updateOne({ _id: 1 }, { $set: { "": 1 } }), "EmptyFieldName", 56, "An empty update path is not valid.");
      await unchanged(c);
    });

    it("refuses a key holding U+0000, in a document and in an update path", async () => {
      const c = await fresh();
      const nul = /must not contain null bytes/;
      await refused(c.insertOne({ _id: 2, params: { "a\u0000b": 1 } }), "BSONError", undefined, nul);
      await refused(c.insertMany([{ _id: 3 }, { _id: 4, params: { deep: [{ "\u0000": 1 }] } }]), "BSONError", undefined, nul);
      await refused(c.replaceOne({ _id: 1 }, { params: { "x\u0000": 1 } }), "BSONError", undefined, nul);
      await refused(c.updateOne({ _id: 1 }, { $set: { "params.a\u0000b": 1 } }), "BSONError", undefined, nul);
      await refused(c.updateOne({ _id: 1 }, { $set: { params: { "a\u0000b": 1 } } }), "BSONError", undefined, nul);
      await unchanged(c);
    });

    it("refuses one key pattern under two index names, and one name for two key patterns", async () => {
      const c = await fresh();
      expect(await c.createIndex({ name: 1 })).toBe("name_1");
      await refused(
        c.createIndex({ name: 1 }, { name: "by_name" }),
        "IndexOptionsConflict",
        85,
        "Index already exists with a different name: name_1",
      );
      await refused(c.createIndex({ n: 1 }, { name: "name_1" }), "IndexKeySpecsConflict", 86);
      await refused(c.createIndex({ name: 1 }, { name: "name_1", unique: true }), "IndexKeySpecsConflict", 86);
    });

    it("aborts a transaction at its first failed call: later calls and the commit are refused, nothing is written", async () => {
      const c = await fresh();
      const other = engine.collection<Doc>(`refusals_${run}_${++count}`);
      await other.insertOne({ _id: "seed" });
      let attempts = 0;
      const err = await engine
        .withTransaction(async (session) => {
          attempts++;
          await other.insertOne({ _id: "staged" }, { session });
          const duplicate = await c.insertOne({ _id: 1, name: "again" }, { session }).catch((e: unknown) => e);
          expect(duplicate).toBeInstanceOf(DuplicateKeyError);
          // The callback carries on as if nothing happened: the transaction is over all the same.
          await refused(c.findOne({ _id: 1 }, { session }), "NoSuchTransaction", 251);
          await refused(other.insertOne({ _id: "after" }, { session }), "NoSuchTransaction", 251);
          await refused(engine.nextSequence(`seq_${run}`, { session }), "NoSuchTransaction", 251);
        })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OperationRefusedError);
      expect(err).toMatchObject({ codeName: "NoSuchTransaction", code: 251 });
      // Not run again: a failed call is no conflict.
      expect(attempts).toBe(1);
      expect(await other.find({})).toEqual([{ _id: "seed" }]);
      await unchanged(c);
    });
  });
}
