import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { backupStore, createEmbeddedEngine, parseBackup, restoreStore, serializeBackup, type StoreBackup } from "./index.js";

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "vexil-backup-"));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

interface Flag {
  _id: string | number;
  name: string;
  at?: Date;
  params?: Record<string, string>;
}

describe("backup and restore (embedded engine)", () => {
  it("copies a store that another engine keeps writing, and restores it into a fresh one exactly", async () => {
    const dir = await tempDir();
    const live = await createEmbeddedEngine({ dir, compactAfterBytes: 2048 });
    const flags = live.collection<Flag>("flags");
    for (let i = 1; i <= 40; i++) {
      await flags.insertOne({
        _id: await live.nextSequence("flags"),
        name: `flag-${i}`,
        at: new Date(Date.UTC(2026, 0, i)),
        params: { $weird: "kept" },
      });
    }
    await live.collection<Flag>("events").insertOne({ _id: "e1", name: "created" });
    await flags.deleteOne({ _id: 3 });

    // Read-only, beside the writer that still has the directory open (its journal compacted every 2 KB).
    const reader = await createEmbeddedEngine({ dir, readOnly: true });
    const backup = parseBackup<StoreBackup>(serializeBackup(await backupStore(reader)));
    await expect(reader.collection<Flag>("flags").insertOne({ _id: "x", name: "nope" })).rejects.toThrow(/read-only/);
    await reader.close();
    await flags.insertOne({ _id: await live.nextSequence("flags"), name: "after the backup" });

    expect(Object.keys(backup.collections)).toEqual(["events", "flags"]);
    expect(backup.collections.flags).toHaveLength(39);
    expect(backup.sequences).toEqual({ flags: 40 });

    const fresh = await createEmbeddedEngine({ dir: await tempDir() });
    await restoreStore(fresh, backup);
    expect(await fresh.collection<Flag>("flags").find({}, { sort: { _id: 1 } })).toEqual(
      await flags.find({ _id: { $lte: 40 } }, { sort: { _id: 1 } }),
    );
    const restored = await fresh.collection<Flag>("flags").findOne({ _id: 1 });
    expect(restored?.at).toEqual(new Date(Date.UTC(2026, 0, 1)));
    expect(restored?.params).toEqual({ $weird: "kept" });
    expect(await fresh.nextSequence("flags")).toBe(41);
    await expect(restoreStore(fresh, backup)).rejects.toThrow(/not empty/);
    await Promise.all([fresh.close(), live.close()]);
  });
});
