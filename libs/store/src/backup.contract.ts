import { describe, expect, it } from "vitest";
import { backupStore, parseBackup, restoreStore, serializeBackup, type StoreBackup } from "./backup.js";
import type { StoreEngine } from "./collection.js";

interface Doc {
  _id: string | number;
  name: string;
  at?: Date;
  params?: Record<string, string>;
}

/**
 * What every engine must do for backups: copy every collection and sequence, and restore them into
 * an empty store exactly (dates and `$` keys included), refusing a store that holds data.
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

      const backup = parseBackup<StoreBackup>(serializeBackup(await backupStore(source)));
      expect(Object.keys(backup.collections)).toEqual(["events", "flags"]);
      expect(backup.sequences).toEqual({ flags: 5 });

      const target = await freshEngine();
      try {
        await restoreStore(target, backup);
        expect(await target.collection<Doc>("flags").find({}, { sort: { _id: 1 } })).toEqual(await flags.find({}, { sort: { _id: 1 } }));
        expect((await target.collection<Doc>("flags").findOne({ _id: 1 }))?.at).toBeInstanceOf(Date);
        expect(await target.collection<Doc>("events").find({})).toEqual([{ _id: "e1", name: "created" }]);
        expect(await target.nextSequence("flags")).toBe(6);
        await expect(restoreStore(target, backup)).rejects.toThrow(/not empty/);
      } finally {
        await Promise.all([source.close(), target.close()]);
      }
    });
  });
}
