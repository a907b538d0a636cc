import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { describeBackupContract } from "./backup.contract.js";
import { backupStore, createEmbeddedEngine, type StoreEngine, type StoreRecord } from "./index.js";

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
}

const copyOf = async (engine: StoreEngine) => {
  const records: StoreRecord[] = [];
  await backupStore(engine, async (record) => void records.push(record));
  return records;
};

describeBackupContract("embedded", async () => createEmbeddedEngine({ dir: await tempDir() }));

describe("backup of an embedded store another process keeps open", () => {
  it("reads it read-only, without changing it, exactly as the writer sees it", async () => {
    const dir = await tempDir();
    const live = await createEmbeddedEngine({ dir, compactAfterBytes: 2048 });
    const flags = live.collection<Flag>("flags");
    for (let i = 1; i <= 40; i++) {
      await flags.insertOne({ _id: await live.nextSequence("flags"), name: `flag-${i}`, at: new Date(Date.UTC(2026, 0, i)) });
    }
    await flags.deleteOne({ _id: 3 });

    // Beside the writer that still has the directory open (its journal compacted every 2 KB).
    const reader = await createEmbeddedEngine({ dir, readOnly: true });
    const copy = await copyOf(reader);
    await expect(reader.collection<Flag>("flags").insertOne({ _id: "x", name: "nope" })).rejects.toThrow(/read-only/);
    await reader.close();
    expect(copy).toEqual(await copyOf(live));
    expect(copy.flatMap((record) => ("collection" in record ? record.documents : []))).toHaveLength(39);

    // The writer goes on as if nothing happened.
    await flags.insertOne({ _id: await live.nextSequence("flags"), name: "after the backup" });
    await live.close();
    const reopened = await createEmbeddedEngine({ dir });
    expect(await reopened.collection<Flag>("flags").countDocuments({})).toBe(40);
    await reopened.close();
  });
});
