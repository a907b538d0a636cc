import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "@vexil/config";
import { platformEnv, storeLocation, type PlatformConfig } from "@vexil/runtime";
import { createEmbeddedEngine, formatCollection, storeFormatOf, type FormatMarker } from "@vexil/store";
import { backupInstallation, restoreInstallation } from "./backup.js";

describe("installation backup and restore", () => {
  let dir: string;
  let config: PlatformConfig;
  const at = new Date("2030-01-01T00:00:00.000Z");

  const configIn = (dataDir: string) => loadConfig(platformEnv, { DATA_DIR: dataDir });
  async function write(service: string, collection: string, docs: { _id: string; [key: string]: unknown }[]) {
    const engine = await createEmbeddedEngine({ dir: storeLocation(config, service).dir });
    try {
      await engine.collection(collection).insertMany(docs);
      await engine.nextSequence(`${collection}_ids`);
    } finally {
      await engine.close();
    }
  }
  async function read(dataDir: string, service: string, collection: string) {
    const engine = await createEmbeddedEngine({ dir: storeLocation(configIn(dataDir), service).dir });
    try {
      return {
        docs: await engine.collection(collection).find({}, { sort: { _id: 1 } }),
        next: await engine.nextSequence(`${collection}_ids`),
      };
    } finally {
      await engine.close();
    }
  }

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "vexil-backup-"));
    config = configIn(path.join(dir, "data"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("copies every service's store into one private file and back into a fresh data directory", async () => {
    await write("admin", "features", [
      { _id: "checkout", createdAt: at },
      { _id: "search", createdAt: at },
    ]);
    await write("addon-delivery", "deliveries", [{ _id: "d1" }]);
    const file = path.join(dir, "vexil.backup");
    // signal-ingest never wrote anything: it has no store to copy.
    expect(await backupInstallation(config, file, () => at)).toEqual({ admin: 2, "addon-delivery": 1 });
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const fresh = path.join(dir, "restored");
    expect(await restoreInstallation(configIn(fresh), file)).toEqual({ admin: 2, "addon-delivery": 1 });
    const features = await read(fresh, "admin", "features");
    expect(features.docs).toEqual([
      { _id: "checkout", createdAt: at },
      { _id: "search", createdAt: at },
    ]);
    // Sequences carry on where they were, so no id is handed out twice.
    expect(features.next).toBe(2);
    expect((await read(fresh, "addon-delivery", "deliveries")).docs).toEqual([{ _id: "d1" }]);
    // The same file again: nothing left to restore, and said so.
    await expect(restoreInstallation(configIn(fresh), file)).rejects.toThrow(/not empty: .* was already restored into them/);
  });

  it("refuses to restore over data, naming the store", async () => {
    await write("admin", "features", [{ _id: "checkout" }]);
    const file = path.join(dir, "vexil.backup");
    await backupInstallation(config, file);
    await expect(restoreInstallation(config, file)).rejects.toThrow(/^Restoring admin into .*admin failed: The store is not empty/);
  });

  it("refuses a file that is not a Vexil backup, or holds a store no service keeps", async () => {
    const other = path.join(dir, "other.json");
    await writeFile(other, JSON.stringify({ format: "something-else", version: 1 }));
    await expect(restoreInstallation(config, other)).rejects.toThrow(/is not a Vexil backup/);

    await write("admin", "features", [{ _id: "checkout" }]);
    const file = path.join(dir, "vexil.backup");
    await backupInstallation(config, file);
    const tampered = (await readFile(file, "utf8")).replace('"admin"', '"billing"');
    await writeFile(file, tampered);
    await expect(restoreInstallation(configIn(path.join(dir, "fresh")), file)).rejects.toThrow(/unknown service billing/);
  });

  it("writes one line per chunk, and refuses a file cut short before restoring anything", async () => {
    await write(
      "admin",
      "features",
      Array.from({ length: 2500 }, (_, i) => ({ _id: `flag-${String(i).padStart(4, "0")}` })),
    );
    const file = path.join(dir, "vexil.backup");
    expect(await backupInstallation(config, file)).toEqual({ admin: 2500 });
    const lines = (await readFile(file, "utf8")).trimEnd().split("\n");
    // Header, store, three chunks of at most 1000, sequences, store end, end.
    expect(lines.map((line) => Object.keys(JSON.parse(line) as object)[0])).toEqual([
      "format",
      "store",
      "collection",
      "collection",
      "collection",
      "sequences",
      "storeEnd",
      "end",
    ]);
    const cut = path.join(dir, "cut.backup");
    await writeFile(cut, `${lines.slice(0, 4).join("\n")}\n`);
    const fresh = path.join(dir, "fresh");
    await expect(restoreInstallation(configIn(fresh), cut)).rejects.toThrow(/is incomplete.*nothing was restored/);
    expect(existsSync(fresh)).toBe(false);
    expect(await restoreInstallation(configIn(fresh), file)).toEqual({ admin: 2500 });
    expect((await read(fresh, "admin", "features")).docs).toHaveLength(2500);
  });

  it("leaves no file when there is nothing to back up", async () => {
    const file = path.join(dir, "vexil.backup");
    await expect(backupInstallation(config, file)).rejects.toThrow(/Nothing to back up/);
    expect(existsSync(file) || existsSync(`${file}.partial`)).toBe(false);
  });

  it("still restores a backup written by the first version (one EJSON document)", async () => {
    const file = path.join(dir, "old.backup");
    const old = {
      format: "vexil-backup",
      version: 1,
      createdAt: { $date: "2029-12-31T00:00:00Z" },
      stores: {
        admin: {
          collections: { features: [{ _id: "checkout", createdAt: { $date: "2030-01-01T00:00:00Z" } }] },
          sequences: { features_ids: 1 },
        },
      },
    };
    await writeFile(file, JSON.stringify(old));
    const fresh = path.join(dir, "restored");
    expect(await restoreInstallation(configIn(fresh), file)).toEqual({ admin: 1 });
    expect(await read(fresh, "admin", "features")).toEqual({ docs: [{ _id: "checkout", createdAt: at }], next: 2 });
  });

  describe("store formats", () => {
    async function markFormat(service: string, format: number) {
      const engine = await createEmbeddedEngine({ dir: storeLocation(config, service).dir });
      try {
        await engine.collection<FormatMarker>(formatCollection).insertOne({ _id: service, format, markedAt: at, migrations: [] });
      } finally {
        await engine.close();
      }
    }

    it("carries each store's format, so the restored store starts in the format it was backed up in", async () => {
      await write("admin", "features", [{ _id: "checkout" }]);
      await markFormat("admin", 1);
      const file = path.join(dir, "vexil.backup");
      await backupInstallation(config, file);
      const fresh = path.join(dir, "fresh");
      await restoreInstallation(configIn(fresh), file);
      const engine = await createEmbeddedEngine({ dir: storeLocation(configIn(fresh), "admin").dir });
      try {
        expect(await storeFormatOf(engine, "admin")).toBe(1);
      } finally {
        await engine.close();
      }
    });

    it("refuses a backup of a store a newer release wrote, before writing anything", async () => {
      await write("admin", "features", [{ _id: "checkout" }]);
      await write("signal-ingest", "signals", [{ _id: "s1" }]);
      await markFormat("signal-ingest", 99);
      const file = path.join(dir, "vexil.backup");
      await backupInstallation(config, file);
      const fresh = path.join(dir, "fresh");
      await expect(restoreInstallation(configIn(fresh), file)).rejects.toThrow(
        /holds the signal-ingest store in format 99, written by a newer release; this one reads formats up to 1\./,
      );
      await expect(stat(fresh)).rejects.toMatchObject({ code: "ENOENT" });
    });
  });
});
