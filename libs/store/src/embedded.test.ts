import { appendFile, chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { BSON } from "mongodb";
import { NotReady } from "@vexil/errors";
import { describeCollectionContract } from "./collection.contract.js";
import { describeConcurrencyContract } from "./concurrency.contract.js";
import { describeDocumentContract } from "./documents.contract.js";
import { describeFormatContract } from "./format.contract.js";
import { describeLimitsContract } from "./limits.contract.js";
import { describeRefusalContract } from "./refusals.contract.js";
import { ejsonOf, storable } from "./embedded/documents.js";
import { fromEJSON, toEJSON } from "./embedded/ejson.js";
import { describeTransactionContract } from "./transactions.contract.js";
import { createEmbeddedEngine, DuplicateKeyError, type StoreEngine } from "./index.js";

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "vexil-store-"));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describeCollectionContract("embedded", async () => createEmbeddedEngine({ dir: await tempDir() }));
describeTransactionContract("embedded", async () => createEmbeddedEngine({ dir: await tempDir() }));
describeDocumentContract("embedded", async () => createEmbeddedEngine({ dir: await tempDir() }));
describeRefusalContract("embedded", async () => createEmbeddedEngine({ dir: await tempDir() }));
describeLimitsContract("embedded", async () => createEmbeddedEngine({ dir: await tempDir() }));
// One writer: the races the suite sets up on MongoDB cannot happen here; it asserts the serial order instead.
describeConcurrencyContract("embedded", async () => createEmbeddedEngine({ dir: await tempDir() }), { serialTransactions: true });
describeFormatContract("embedded", async () => createEmbeddedEngine({ dir: await tempDir() }));

interface Flag {
  _id: string | number;
  name: string;
  project?: string;
  enabled?: boolean;
  at?: Date;
}

const journalOf = (dir: string) => join(dir, "journal.ejsonl");

describe("embedded engine persistence", () => {
  /** Writes one of everything the engine persists, then closes it. */
  async function writeEverything(dir: string, options: { compactAfterBytes?: number } = {}): Promise<void> {
    const engine = await createEmbeddedEngine({ dir, ...options });
    const flags = engine.collection<Flag>("flags");
    const events = engine.collection<Flag>("events");
    await flags.createIndex({ project: 1, name: 1 }, { unique: true });
    await flags.insertOne({ _id: 1, name: "one", project: "p", at: new Date("2024-01-02T03:04:05.678Z") });
    await flags.insertMany([
      { _id: 2, name: "two", project: "p" },
      { _id: 3, name: "three", project: "p" },
    ]);
    await flags.updateOne({ _id: 2 }, { $set: { enabled: true } });
    await flags.deleteOne({ _id: 3 });
    await engine.withTransaction(async (session) => {
      await flags.insertOne({ _id: 4, name: "four", project: "p" }, { session });
      await events.insertOne({ _id: "e4", name: "flag-created" }, { session });
    });
    await engine
      .withTransaction(async (session) => {
        await flags.insertOne({ _id: 5, name: "rolled back", project: "p" }, { session });
        throw new Error("abort");
      })
      .catch(() => undefined);
    expect(await engine.nextSequence("flags")).toBe(1);
    expect(await engine.nextSequence("flags")).toBe(2);
    await engine.close();
  }

  async function expectEverything(engine: StoreEngine): Promise<void> {
    const flags = engine.collection<Flag>("flags");
    expect(await flags.find({}, { sort: { _id: 1 } })).toEqual([
      { _id: 1, name: "one", project: "p", at: new Date("2024-01-02T03:04:05.678Z") },
      { _id: 2, name: "two", project: "p", enabled: true },
      { _id: 4, name: "four", project: "p" },
    ]);
    expect((await flags.findOne({ _id: 1 }))?.at).toBeInstanceOf(Date);
    expect(await engine.collection<Flag>("events").find({})).toEqual([{ _id: "e4", name: "flag-created" }]);
    await expect(flags.insertOne({ _id: 9, name: "one", project: "p" })).rejects.toBeInstanceOf(DuplicateKeyError);
    expect(await engine.nextSequence("flags")).toBe(3);
  }

  it("keeps every committed write, transaction and sequence across close and reopen", async () => {
    const dir = await tempDir();
    await writeEverything(dir);
    const reopened = await createEmbeddedEngine({ dir });
    await expectEverything(reopened);
    await reopened.close();
    // A second reopen reads the snapshot the first one folded the journal into.
    const again = await createEmbeddedEngine({ dir });
    expect(await again.collection<Flag>("flags").countDocuments({})).toBe(3);
    await again.close();
  });

  it("drops a torn last journal line with an error line and keeps appending cleanly after it", async () => {
    const dir = await tempDir();
    const engine = await createEmbeddedEngine({ dir });
    await engine.collection<Flag>("flags").insertOne({ _id: 1, name: "kept" });
    await engine.close();
    await appendFile(journalOf(dir), '[{"op":"put","c":"flags","doc":{"_id":2,"na');

    const log = { error: vi.fn(), warn: vi.fn(), info: vi.fn() };
    const reopened = await createEmbeddedEngine({ dir, log });
    expect(log.error).toHaveBeenCalledWith(
      expect.objectContaining({ offset: expect.any(Number), bytes: 43, prefix: '[{"op":"put","c":"flags","doc":{"_id":2,"na' }),
      expect.stringMatching(/torn record/),
    );
    expect(await reopened.collection<Flag>("flags").find({})).toEqual([{ _id: 1, name: "kept" }]);
    await reopened.collection<Flag>("flags").insertOne({ _id: 3, name: "after" });
    await reopened.close();

    const third = await createEmbeddedEngine({ dir });
    expect(await third.collection<Flag>("flags").countDocuments({})).toBe(2);
    await third.close();
  });

  it("refuses to open over a corrupt line in the middle of the journal", async () => {
    const dir = await tempDir();
    await writeFile(journalOf(dir), 'not json\n[{"op":"sequence","name":"s","value":1}]\n');
    await expect(createEmbeddedEngine({ dir })).rejects.toThrow(/Corrupt store journal .* line 1/);
  });

  it("keeps all data through compaction", async () => {
    const dir = await tempDir();
    // With a tiny threshold the journal is folded into the snapshot whenever it outgrows a quarter of it.
    await writeEverything(dir, { compactAfterBytes: 1 });
    expect((await stat(journalOf(dir))).size).toBeLessThanOrEqual((await stat(join(dir, "snapshot.ejson"))).size / 4);
    const reopened = await createEmbeddedEngine({ dir, compactAfterBytes: 1 });
    await expectEverything(reopened);
    await reopened.close();
  });

  it("keeps user keys that look like EJSON wrappers as data, in the journal and the snapshot", async () => {
    const dir = await tempDir();
    const params = { when: { $date: "2024-01-01T00:00:00Z" }, id: { $oid: "507f1f77bcf86cd799439011" }, "a.b": { $$x: 1 } };
    const engine = await createEmbeddedEngine({ dir });
    await engine.collection<{ _id: number; params: unknown }>("flags").insertOne({ _id: 1, params });
    await engine.close();
    for (const compactAfterBytes of [8 * 1024 * 1024, 1]) {
      const reopened = await createEmbeddedEngine({ dir, compactAfterBytes });
      expect(await reopened.collection("flags").findOne({ _id: 1 })).toEqual({ _id: 1, params });
      await reopened.close();
    }
  });

  it("keeps a key named __proto__ as data when reading, updating and after a restart", async () => {
    const dir = await tempDir();
    const params = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as Record<string, unknown>;
    const engine = await createEmbeddedEngine({ dir });
    const flags = engine.collection<{ _id: number; params: unknown; n?: number }>("flags");
    await flags.insertOne({ _id: 1, params });
    await flags.updateOne({ _id: 1 }, { $set: { n: 1 } });
    const read = (await flags.findOne({ _id: 1 }))!.params as Record<string, unknown>;
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(Object.keys(read)).toEqual(["__proto__", "x"]);
    await engine.close();
    const reopened = await createEmbeddedEngine({ dir });
    const after = (await reopened.collection<{ _id: number; params: unknown }>("flags").findOne({ _id: 1 }))!.params as Record<
      string,
      unknown
    >;
    expect(Object.keys(after)).toEqual(["__proto__", "x"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await reopened.close();
  });

  it("keeps partial indexes and sequence values committed by transactions", async () => {
    const dir = await tempDir();
    const engine = await createEmbeddedEngine({ dir });
    const flags = engine.collection<Flag & { state?: string }>("flags");
    await flags.createIndex({ name: 1 }, { unique: true, partialFilterExpression: { state: "Draft" } });
    await engine.withTransaction(async (session) => {
      await flags.insertOne({ _id: await engine.nextSequence("flags", { session }), name: "a", state: "Draft" }, { session });
    });
    await engine.close();
    const reopened = await createEmbeddedEngine({ dir });
    const again = reopened.collection<Flag & { state?: string }>("flags");
    await expect(again.insertOne({ _id: 2, name: "a", state: "Draft" })).rejects.toBeInstanceOf(DuplicateKeyError);
    await again.insertOne({ _id: 2, name: "a", state: "Applied" });
    expect(await reopened.withTransaction((session) => reopened.nextSequence("flags", { session }))).toBe(2);
    await reopened.close();
  });

  it("creates its directory 0700 and its files 0600, and tightens ones left open by an older version", async () => {
    const parent = await tempDir();
    const dir = join(parent, "data", "admin");
    const engine = await createEmbeddedEngine({ dir, compactAfterBytes: 1 });
    await engine.collection<Flag>("flags").insertOne({ _id: 1, name: "secret" });
    await engine.close();
    const mode = async (path: string) => (await stat(path)).mode & 0o777;
    expect(await mode(join(parent, "data"))).toBe(0o700);
    expect(await mode(dir)).toBe(0o700);
    const files = await readdir(dir);
    expect(files.sort()).toEqual(["journal.ejsonl", "snapshot.ejson"]);
    for (const file of files) expect(await mode(join(dir, file))).toBe(0o600);

    const old = join(parent, "old");
    await mkdir(old, { mode: 0o755 });
    await writeFile(join(old, "journal.ejsonl"), "", { mode: 0o644 });
    await chmod(join(old, "journal.ejsonl"), 0o644);
    await (await createEmbeddedEngine({ dir: old })).close();
    expect(await mode(old)).toBe(0o700);
    expect(await mode(join(old, "journal.ejsonl"))).toBe(0o600);
  });

  it("appends one line per write instead of rewriting the database", async () => {
    const dir = await tempDir();
    const engine = await createEmbeddedEngine({ dir });
    const flags = engine.collection<Flag>("flags");
    await flags.insertMany(Array.from({ length: 500 }, (_, i) => ({ _id: i, name: `flag-${i}` })));
    const before = (await stat(journalOf(dir))).size;
    await flags.updateOne({ _id: 7 }, { $set: { enabled: true } });
    const journal = await readFile(journalOf(dir), "utf8");
    expect(journal.split("\n").filter(Boolean)).toHaveLength(2);
    expect(journal.length - before).toBeLessThan(200);
    await engine.close();
  });
});

describe("embedded engine behaviour", () => {
  async function open() {
    const engine = await createEmbeddedEngine({ dir: await tempDir() });
    return { engine, flags: engine.collection<Flag>("flags") };
  }

  it("rejects a write without the session inside withTransaction instead of waiting forever", async () => {
    const { engine, flags } = await open();
    await expect(
      engine.withTransaction(async () => {
        await flags.insertOne({ _id: 1, name: "no session" });
      }),
    ).rejects.toThrow(/pass \{ session \}/);
    await expect(engine.withTransaction(() => engine.withTransaction(async () => 1))).rejects.toThrow(/pass \{ session \}/);
    expect(await flags.countDocuments({})).toBe(0);
    await engine.close();
  });

  it("rejects a session after its transaction ended, and a session of another engine", async () => {
    const { engine, flags } = await open();
    const other = await open();
    const leaked = await engine.withTransaction(async (session) => session);
    await expect(flags.insertOne({ _id: 1, name: "late" }, { session: leaked })).rejects.toThrow(/has ended/);
    await other.engine.withTransaction(async (session) => {
      await expect(flags.findOne({ _id: 1 }, { session })).rejects.toThrow(/Not a session of this store engine/);
    });
    await engine.close();
    await other.engine.close();
  });

  it("makes concurrent writers wait for a running transaction", async () => {
    const { engine, flags } = await open();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const transaction = engine.withTransaction(async (session) => {
      await flags.insertOne({ _id: 1, name: "in transaction" }, { session });
      await gate;
    });
    const outside = flags.updateOne({ _id: 1 }, { $set: { enabled: true } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await transaction;
    // The outside update ran after the commit, so it saw the document.
    expect(await outside).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
    await engine.close();
  });

  it("rejects documents without a string or number _id", async () => {
    const { engine, flags } = await open();
    await expect(flags.insertOne({ name: "no id" } as Flag)).rejects.toThrow(/needs a string or number _id/);
    await expect(flags.insertOne({ _id: { nested: 1 }, name: "object id" } as unknown as Flag)).rejects.toThrow();
    expect(await flags.countDocuments({})).toBe(0);
    await engine.close();
  });

  it("reports NotReady once closed", async () => {
    const { engine, flags } = await open();
    await engine.close();
    await expect(engine.ping()).rejects.toBeInstanceOf(NotReady);
    await expect(flags.find({})).rejects.toBeInstanceOf(NotReady);
    await expect(engine.close()).resolves.toBeUndefined();
  });

  it("finds among a few thousand documents", async () => {
    const { engine, flags } = await open();
    await flags.insertMany(
      Array.from({ length: 5000 }, (_, i) => ({ _id: i, name: `flag-${i}`, project: `p${i % 50}`, enabled: i % 2 === 0 })),
    );
    const page = await flags.find({ project: "p8", enabled: true }, { sort: { name: -1 }, limit: 3 });
    expect(page.map((flag) => flag.name)).toEqual(["flag-958", "flag-908", "flag-858"]);
    expect(await flags.findOne({ _id: 4321 })).toMatchObject({ name: "flag-4321" });
    await engine.close();
  });
});

/** Values copied as plain data, and the ones that must take the EJSON round trip instead. */
const leaves: unknown[] = [
  "text",
  "",
  0,
  -0,
  42,
  -1.5,
  2 ** 60,
  Number.NaN,
  Infinity,
  true,
  false,
  null,
  undefined,
  new Date("2024-05-06T07:08:09.123Z"),
  new Date("2024-05-06T07:08:09Z"),
  new Date(-86_400_000),
  new Date(253_402_318_800_000),
  new BSON.ObjectId("507f1f77bcf86cd799439011"),
  new BSON.Decimal128("1.5"),
  { $date: "2024-01-01T00:00:00Z" },
];
const keys = ["a", "$set", "$$x", "a.b", "__proto__", "10"];

/** Each leaf under each key, alone, in an array, and deep in a document next to plain values. */
function shapes(): unknown[] {
  return leaves.flatMap((leaf) =>
    keys.flatMap((key) => {
      const keyed: Record<string, unknown> = {};
      Object.defineProperty(keyed, key, { value: leaf, enumerable: true, writable: true, configurable: true });
      return [keyed, [leaf, "plain"], { plain: [1, "x", { at: new Date(0) }], deep: [{ keyed }] }];
    }),
  );
}

describe("embedded engine: what a document reads back as", () => {
  it("is what the journal's EJSON round trip gives, whether it is copied as plain data or parsed", async () => {
    const dir = await tempDir();
    const engine = await createEmbeddedEngine({ dir });
    const docs = engine.collection<{ _id: number; v: unknown }>("docs");
    const expected = shapes().map((v, i) => ({ id: i + 1, v, roundTrip: fromEJSON<{ v: unknown }>(toEJSON({ v })).v }));
    for (const { id, v, roundTrip } of expected) {
      await docs.insertOne({ _id: id, v });
      expect((await docs.findOne({ _id: id }))?.v, `document ${id}`).toStrictEqual(roundTrip);
    }
    await engine.close();
    // After a restart, read from the journal itself.
    const reopened = await createEmbeddedEngine({ dir });
    for (const { id, roundTrip } of expected) {
      expect((await reopened.collection<{ _id: number; v: unknown }>("docs").findOne({ _id: id }))?.v, `document ${id}`).toStrictEqual(
        roundTrip,
      );
    }
    await reopened.close();
  });

  it("is journaled as the text EJSON writes for it, whether its text is written directly or by EJSON", () => {
    for (const [i, v] of shapes().entries()) {
      expect(ejsonOf(storable("docs", { _id: i, v })), `shape ${i}`).toBe(toEJSON({ _id: i, v }));
    }
  });

  it("refuses a document EJSON cannot write (an invalid Date, a forged BSON type)", async () => {
    const engine = await createEmbeddedEngine({ dir: await tempDir() });
    const docs = engine.collection<{ _id: number; v: unknown }>("docs");
    await expect(docs.insertOne({ _id: 1, v: new Date(Number.NaN) })).rejects.toThrow();
    await expect(docs.insertOne({ _id: 2, v: { _bsontype: "ObjectId" } })).rejects.toThrow();
    expect(await docs.countDocuments({})).toBe(0);
    await engine.close();
  });
});
