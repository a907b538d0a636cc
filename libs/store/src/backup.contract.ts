import { describe, expect, it } from "vitest";
import { backupStore, parseRecord, restoreStore, serializeRecord, type StoreRecord } from "./backup.js";
import type { StoreEngine } from "./collection.js";

interface Doc {
  _id: string | number;
  name: string;
  at?: Date;
  params?: Record<string, string>;
}

/** Backs a store up into records, as a file holds them (serialized and parsed again). */
async function recordsOf(engine: StoreEngine, options?: Parameters<typeof backupStore>[2]): Promise<StoreRecord[]> {
  const lines: string[] = [];
  await backupStore(engine, async (record) => void lines.push(serializeRecord(record)), options);
  return lines.map((line) => parseRecord<StoreRecord>(line));
}

async function* stream(records: StoreRecord[], failAfterChunks = Infinity): AsyncIterable<StoreRecord> {
  let chunks = 0;
  for (const record of records) {
    if ("collection" in record && chunks++ === failAfterChunks) throw new Error("connection lost");
    yield record;
  }
}

/**
 * What every engine must do for backups: copy every collection and sequence at one point in time,
 * a bounded chunk at a time, and restore them into an empty store exactly (dates and `$` keys
 * included), going on where an interrupted restore stopped, and refusing a store that holds other data.
 * `freshEngine` opens a new, empty store on each call.
 */
export function describeBackupContract(name: string, freshEngine: () => Promise<StoreEngine>): void {
  describe(`Backup contract: ${name}`, () => {
    it("restores into an empty store what the backup copied, and nothing into one that holds data", async () => {
      const source = await freshEngine();
      const flags = source.collection<Doc>("flags");
      for (let i = 1; i <= 5; i++) {
        await flags.insertOne({
          _id: await source.nextSequence("flags"),
          name: `flag-${i}`,
          at: new Date(Date.UTC(2026, 0, i)),
          params: { $odd: "kept" },
        });
      }
      await source.collection<Doc>("events").insertOne({ _id: "e1", name: "created" });
      await source.collection<Doc>("emptied").insertOne({ _id: "x", name: "gone" });
      await source.collection<Doc>("emptied").deleteOne({ _id: "x" });

      const records = await recordsOf(source, { chunkDocuments: 2 });
      // Bounded chunks, collection by collection; an empty collection gives none; the sequences last.
      expect(records.map((record) => ("collection" in record ? `${record.collection}:${record.documents.length}` : "sequences"))).toEqual([
        "events:1",
        "flags:2",
        "flags:2",
        "flags:1",
        "sequences",
      ]);
      expect(records.at(-1)).toEqual({ sequences: { flags: 5 } });

      const target = await freshEngine();
      try {
        expect(await restoreStore(target, "backup-1", stream(records))).toEqual({ written: 6, finishedBefore: false });
        expect(await target.collection<Doc>("flags").find({}, { sort: { _id: 1 } })).toEqual(await flags.find({}, { sort: { _id: 1 } }));
        expect((await target.collection<Doc>("flags").findOne({ _id: 1 }))?.at).toBeInstanceOf(Date);
        expect(await target.collection<Doc>("events").find({})).toEqual([{ _id: "e1", name: "created" }]);
        expect(await target.nextSequence("flags")).toBe(6);
        // The same backup again: already restored, nothing written twice. Another one: refused.
        expect(await restoreStore(target, "backup-1", stream(records))).toEqual({ written: 0, finishedBefore: true });
        await expect(restoreStore(target, "backup-2", stream(records))).rejects.toThrow(/another backup/);
        // The restore's own progress record is not part of what a backup copies.
        expect((await recordsOf(target)).filter((record) => "collection" in record && record.collection === "restore_progress")).toEqual(
          [],
        );
      } finally {
        await Promise.all([source.close(), target.close()]);
      }
      const holding = await freshEngine();
      try {
        await holding.collection<Doc>("flags").insertOne({ _id: 1, name: "mine" });
        await expect(restoreStore(holding, "backup-1", stream(records))).rejects.toThrow(/not empty \(it holds flags\)/);
      } finally {
        await holding.close();
      }
    });

    it("bounds chunks by bytes as well, a document larger than the bound going alone", async () => {
      const source = await freshEngine();
      try {
        await source.collection<Doc>("blobs").insertMany([
          { _id: 1, name: "a".repeat(3000) },
          { _id: 2, name: "b".repeat(3000) },
          { _id: 3, name: "c".repeat(9000) },
          { _id: 4, name: "d" },
        ]);
        const sizes = (await recordsOf(source, { chunkBytes: 8000 })).flatMap((record) =>
          "collection" in record ? [record.documents.map((doc) => doc._id)] : [],
        );
        expect(sizes).toEqual([[1, 2], [3], [4]]);
      } finally {
        await source.close();
      }
    });

    it("goes on where an interrupted restore stopped, writing nothing twice", async () => {
      const source = await freshEngine();
      const target = await freshEngine();
      try {
        await source.collection<Doc>("flags").insertMany(Array.from({ length: 7 }, (_, i) => ({ _id: i + 1, name: `flag-${i + 1}` })));
        const records = await recordsOf(source, { chunkDocuments: 3 });
        await expect(restoreStore(target, "backup-1", stream(records, 2))).rejects.toThrow("connection lost");
        // Two chunks of three were written, each whole.
        expect(await target.collection<Doc>("flags").countDocuments({})).toBe(6);
        await expect(restoreStore(target, "backup-2", stream(records))).rejects.toThrow(/another backup/);
        expect(await restoreStore(target, "backup-1", stream(records))).toEqual({ written: 1, finishedBefore: false });
        expect((await target.collection<Doc>("flags").find({}, { sort: { _id: 1 } })).map((doc) => doc._id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      } finally {
        await Promise.all([source.close(), target.close()]);
      }
    });

    it("copies the store as of one point: a write made while the backup runs is not in it", async () => {
      const source = await freshEngine();
      try {
        const flags = source.collection<Doc>("flags");
        await flags.insertMany([
          { _id: 1, name: "before" },
          { _id: 2, name: "before" },
        ]);
        let during: Promise<unknown> | undefined;
        const lines: string[] = [];
        await backupStore(
          source,
          async (record) => {
            // A writer arriving mid-backup: it waits (embedded) or commits after the snapshot's point (MongoDB).
            during ??= flags.insertOne({ _id: 3, name: "during" });
            lines.push(serializeRecord(record));
          },
          { chunkDocuments: 1 },
        );
        await during;
        const copied = lines
          .map((line) => parseRecord<StoreRecord>(line))
          .flatMap((record) => ("collection" in record ? record.documents : []));
        expect(copied.map((doc) => doc._id)).toEqual([1, 2]);
        expect(await flags.countDocuments({})).toBe(3);
      } finally {
        await source.close();
      }
    });
  });
}
