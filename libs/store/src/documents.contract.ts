import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Collection, StoreEngine } from "./collection.js";
import { toVexilError } from "@vexil/errors";
import { DocumentTooLargeError, DuplicateKeyError } from "./errors.js";

interface Doc {
  _id: string | number;
  name?: string;
  project?: string;
  state?: string;
  email?: string | null;
  logins?: string[];
  params?: Record<string, unknown>;
  blob?: string;
  more?: string;
}

const MiB = 1024 * 1024;

/**
 * The rest of the behaviour both engines share: partial and multikey unique indexes, all-or-nothing
 * `insertMany`, user-chosen keys with `$` and `.`, MongoDB's 16 MiB document limit.
 */
export function describeDocumentContract(name: string, makeEngine: () => Promise<StoreEngine>): void {
  describe(`Documents and indexes: ${name}`, () => {
    let engine: StoreEngine;
    const run = randomUUID().slice(0, 8);
    let count = 0;
    const fresh = (): Collection<Doc> => engine.collection<Doc>(`documents_${run}_${++count}`);

    beforeAll(async () => {
      engine = await makeEngine();
    });
    afterAll(async () => {
      await engine?.close();
    });

    describe("partial unique indexes", () => {
      it("constrain only the documents matching their filter", async () => {
        const c = fresh();
        await c.createIndex({ project: 1, name: 1 }, { unique: true, partialFilterExpression: { state: "Draft" } });
        await c.insertMany([
          { _id: 1, project: "p", name: "ann", state: "Draft" },
          { _id: 2, project: "p", name: "ann", state: "Applied" },
          { _id: 3, project: "p", name: "ann", state: "Applied" },
        ]);
        const err = await c.insertOne({ _id: 4, project: "p", name: "ann", state: "Draft" }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(DuplicateKeyError);
        expect(err).toMatchObject({ keyPattern: { project: 1, name: 1 }, keyValue: { project: "p", name: "ann" } });
        await expect(c.updateOne({ _id: 2 }, { $set: { state: "Draft" } })).rejects.toBeInstanceOf(DuplicateKeyError);
        // Leaving the filter frees the key.
        await c.updateOne({ _id: 1 }, { $set: { state: "In review" } });
        await c.updateOne({ _id: 2 }, { $set: { state: "Draft" } });
        expect(await c.countDocuments({ state: "Draft" })).toBe(1);
      });

      it("let documents without the field coexist", async () => {
        const c = fresh();
        await c.createIndex({ email: 1 }, { unique: true, partialFilterExpression: { email: { $type: "string" } } });
        await c.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3, email: null }, { _id: 4, email: null }, { _id: 5, email: "a@x.io" }]);
        await expect(c.insertOne({ _id: 6, email: "a@x.io" })).rejects.toBeInstanceOf(DuplicateKeyError);
        expect(await c.countDocuments({})).toBe(5);
      });

      it("refuse to be created over documents that already collide", async () => {
        const c = fresh();
        await c.insertMany([
          { _id: 1, name: "twin", state: "Draft" },
          { _id: 2, name: "twin", state: "Draft" },
        ]);
        await expect(c.createIndex({ name: 1 }, { unique: true, partialFilterExpression: { state: "Draft" } })).rejects.toBeInstanceOf(
          DuplicateKeyError,
        );
      });
    });

    describe("unique indexes on arrays", () => {
      it("give each element its own key: no two documents share one", async () => {
        const c = fresh();
        await c.createIndex({ logins: 1 }, { unique: true, partialFilterExpression: { logins: { $exists: true } } });
        await c.insertOne({ _id: 1, logins: ["ann", "ann@x.io"] });
        // Repeating a value inside one document is no collision.
        await c.insertOne({ _id: 2, logins: ["bob", "bob"] });
        const err = await c.insertOne({ _id: 3, logins: ["carl", "ann@x.io"] }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(DuplicateKeyError);
        expect(err).toMatchObject({ keyPattern: { logins: 1 }, keyValue: { logins: "ann@x.io" } });
        await expect(c.updateOne({ _id: 2 }, { $push: { logins: "ann" } })).rejects.toBeInstanceOf(DuplicateKeyError);
        await c.updateOne({ _id: 1 }, { $set: { logins: ["ann"] } });
        await c.insertOne({ _id: 3, logins: ["carl", "ann@x.io"] });
        expect(await c.findOne({ logins: "ann@x.io" }, { projection: { _id: 1 } })).toEqual({ _id: 3 });
      });
    });

    describe("insertMany", () => {
      it("inserts nothing when one document collides, and reports the index, key pattern and values", async () => {
        const c = fresh();
        await c.createIndex({ project: 1, name: 1 }, { unique: true });
        await c.insertOne({ _id: "existing", project: "p", name: "taken" });
        const err = await c
          .insertMany([
            { _id: "a", project: "p", name: "free" },
            { _id: "b", project: "p", name: "taken" },
            { _id: "c", project: "p", name: "other" },
          ])
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(DuplicateKeyError);
        expect(err).toMatchObject({
          index: "project_1_name_1",
          keyPattern: { project: 1, name: 1 },
          keyValue: { project: "p", name: "taken" },
        });
        expect(await c.find({}, { projection: { _id: 1 } })).toEqual([{ _id: "existing" }]);
      });

      it("inserts nothing when the batch collides with itself, on _id or an index", async () => {
        const c = fresh();
        await c.createIndex({ name: 1 }, { unique: true });
        await expect(
          c.insertMany([
            { _id: 1, name: "one" },
            { _id: 1, name: "again" },
          ]),
        ).rejects.toMatchObject({ index: "_id_" });
        await expect(
          c.insertMany([
            { _id: 1, name: "same" },
            { _id: 2, name: "same" },
          ]),
        ).rejects.toBeInstanceOf(DuplicateKeyError);
        expect(await c.countDocuments({})).toBe(0);
      });

      it("aborts the whole transaction when it fails inside one", async () => {
        const c = fresh();
        const other = fresh();
        await c.insertOne({ _id: 1, name: "existing" });
        await expect(
          engine.withTransaction(async (session) => {
            await other.insertOne({ _id: "kept?", name: "no" }, { session });
            await c.insertMany(
              [
                { _id: 2, name: "new" },
                { _id: 1, name: "again" },
              ],
              { session },
            );
          }),
        ).rejects.toBeInstanceOf(DuplicateKeyError);
        expect(await c.countDocuments({})).toBe(1);
        expect(await other.countDocuments({})).toBe(0);
      });
    });

    describe("user-chosen keys with $ and .", () => {
      // Strategy parameters, signal payloads and event data carry keys users chose. EJSON would read
      // `{ $date }`, `{ $oid }` or `{ $numberLong }` objects as typed values: they must stay data.
      const params = {
        when: { $date: "2024-01-01T00:00:00Z" },
        id: { $oid: "507f1f77bcf86cd799439011" },
        count: { $numberLong: "5" },
        $x: { "c.d": ["$e"], "a.b": "dotted" },
        "group.id": "g",
        $$already: "two dollars",
      };

      it("come back as written through insert, replacement, $set and upsert", async () => {
        const c = fresh();
        await c.insertOne({ _id: 1, params });
        expect(await c.findOne({ _id: 1 })).toEqual({ _id: 1, params });
        await c.replaceOne({ _id: 1 }, { name: "replaced", params: { ...params, $extra: "x" } });
        expect(await c.findOne({ _id: 1 })).toEqual({ _id: 1, name: "replaced", params: { ...params, $extra: "x" } });
        await c.updateOne({ _id: 1 }, { $set: { params, name: "set" } });
        expect(await c.findOne({ _id: 1 })).toEqual({ _id: 1, name: "set", params });
        await c.updateOne({ _id: 2 }, { $set: { params } }, { upsert: true });
        expect(await c.findOne({ _id: 2 })).toEqual({ _id: 2, params });
        expect(await c.find({ name: "set" })).toEqual([{ _id: 1, name: "set", params }]);
      });

      it("are stored under a dotted path as nested fields: a key with . cannot be a path segment", async () => {
        const c = fresh();
        await c.insertOne({ _id: 1, params: {} });
        await c.updateOne({ _id: 1 }, { $set: { "params.prod.eu": { enabled: true } } });
        expect(await c.findOne({ _id: 1 })).toEqual({ _id: 1, params: { prod: { eu: { enabled: true } } } });
      });
    });

    // 16 MiB documents take seconds to serialize and journal on a loaded machine.
    describe("the 16 MiB document limit", { timeout: 120_000 }, () => {
      it("refuses a larger document and keeps one just under it", async () => {
        const c = fresh();
        const err = await c.insertOne({ _id: "big", blob: "x".repeat(16 * MiB + 1024) }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(DocumentTooLargeError);
        expect(toVexilError(err).status).toBe(413);
        expect(await c.countDocuments({})).toBe(0);
        await c.insertOne({ _id: "fits", blob: "x".repeat(16 * MiB - 64 * 1024) });
        expect((await c.findOne({ _id: "fits" }))?.blob?.length).toBe(16 * MiB - 64 * 1024);
      });

      it("refuses an update that would grow a document past it, leaving the document as it was", async () => {
        const c = fresh();
        await c.insertOne({ _id: "growing", blob: "x".repeat(15 * MiB) });
        await expect(c.updateOne({ _id: "growing" }, { $set: { more: "y".repeat(2 * MiB) } })).rejects.toBeInstanceOf(
          DocumentTooLargeError,
        );
        expect((await c.findOne({ _id: "growing" }, { projection: { more: 1 } })) ?? {}).toEqual({ _id: "growing" });
        await expect(
          c.findOneAndUpdate({ _id: "growing" }, { $set: { more: "y".repeat(2 * MiB) } }, { returnDocument: "after" }),
        ).rejects.toBeInstanceOf(DocumentTooLargeError);
      });

      it("refuses an upsert whose new document would pass it, though its command fits (17420 on MongoDB)", async () => {
        const c = fresh();
        // Half from the filter's equality, half from $set: each part fits, the document they make does not.
        const err = await c
          .updateOne({ _id: "upserted", name: "n".repeat(8 * MiB) }, { $set: { blob: "x".repeat(8 * MiB + 8 * 1024) } }, { upsert: true })
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(DocumentTooLargeError);
        expect(toVexilError(err).status).toBe(413);
        expect(await c.countDocuments({})).toBe(0);
        await expect(c.replaceOne({ _id: "replaced" }, { blob: "x".repeat(16 * MiB + 1024) }, { upsert: true })).rejects.toBeInstanceOf(
          DocumentTooLargeError,
        );
        expect(await c.countDocuments({})).toBe(0);
      });
    });

    it("estimates a collection's size without a scan", async () => {
      const c = fresh();
      expect(await c.estimatedDocumentCount()).toBe(0);
      await c.insertMany(Array.from({ length: 5 }, (_, i) => ({ _id: i })));
      await c.deleteOne({ _id: 0 });
      expect(await c.estimatedDocumentCount()).toBe(4);
    });
  });
}
