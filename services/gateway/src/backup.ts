import { randomUUID } from "node:crypto";
import { createReadStream, existsSync } from "node:fs";
import { open, readFile, rename, rm } from "node:fs/promises";
import { createInterface } from "node:readline";
import { addonDeliveryStoreFormat } from "@vexil/addon-delivery";
import { adminStoreFormat } from "@vexil/admin";
import { signalIngestStoreFormat } from "@vexil/signal-ingest";
import {
  backupStore,
  createEmbeddedEngine,
  createMongoEngine,
  currentFormat,
  formatCollection,
  parseRecord,
  restoreStore,
  serializeRecord,
  type BaseDocument,
  type FormatMarker,
  type StoreEngine,
  type StoreRecord,
} from "@vexil/store";
import { storeLocation, type PlatformConfig } from "@vexil/runtime";

/** The services that keep a store (the gateway opens one for each, as does each cluster process). */
export const servicesWithStore = ["admin", "signal-ingest", "addon-delivery"] as const;

/** The newest store format this release reads, per service. */
const readableFormats: Record<string, number> = Object.fromEntries(
  [adminStoreFormat, signalIngestStoreFormat, addonDeliveryStoreFormat].map((format) => [format.service, currentFormat(format)]),
);

/**
 * A backup carries each store's format marker (a collection like any other), so a restored store
 * starts in the format it was backed up in, and older ones are migrated at the next start. One
 * written by a newer release is refused before anything is written, rather than at the start.
 */
function assertReadableFormats(file: string, markers: FormatMarker[]): void {
  for (const marker of markers) {
    const readable = readableFormats[marker._id];
    if (readable !== undefined && marker.format > readable) {
      throw new Error(
        `${file} holds the ${marker._id} store in format ${marker.format}, written by a newer release; this one reads formats up to ${readable}. ` +
          "Restore it with the release that made it (or a later one)",
      );
    }
  }
}

/**
 * A backup file: EJSON lines. A header, then for each store a line naming it, its records (a
 * chunk of documents per line, then its sequences) and a line closing it with its count, then a
 * last line with every count: a file cut short (a full disk, a copy interrupted) is told apart
 * from a whole one before anything is restored.
 */
interface Header {
  format: "vexil-backup";
  version: 2;
  /** Names the backup to a restore that goes on after an interruption. */
  id: string;
  createdAt: Date;
}
type Line = Header | { store: string } | StoreRecord | { storeEnd: string; documents: number } | { end: Record<string, number> };

/**
 * A running Vexil may be writing the embedded stores: they are read without being changed (see
 * `readOnly`). MongoDB serves the backup's reads like any other client's.
 */
async function openForBackup(config: PlatformConfig, service: string): Promise<StoreEngine | undefined> {
  const { database, dir } = storeLocation(config, service);
  if (config.MONGODB_URL) return createMongoEngine({ url: config.MONGODB_URL, database });
  return existsSync(dir) ? createEmbeddedEngine({ dir, readOnly: true }) : undefined;
}

/** The services whose stores are distinct: with MONGODB_DATABASE set they all share one database, copied once. */
function distinctStores(config: PlatformConfig): string[] {
  const seen = new Set<string>();
  return servicesWithStore.filter((service) => {
    const { database, dir } = storeLocation(config, service);
    const key = config.MONGODB_URL ? `mongodb:${database}` : `dir:${dir}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const where = (config: PlatformConfig, service: string) =>
  config.MONGODB_URL ? `database ${storeLocation(config, service).database}` : storeLocation(config, service).dir;

/**
 * Writes every service's store into one file, streaming: each store is read at one point in time
 * (see `backupStore`) a chunk at a time, each chunk written before the next is read. The file is
 * written under another name and renamed when whole, so a failed backup leaves no file that looks
 * like one. Resolves with how many documents each store held.
 */
export async function backupInstallation(config: PlatformConfig, file: string, clock = () => new Date()): Promise<Record<string, number>> {
  const partial = `${file}.partial`;
  const out = await open(partial, "w", 0o600);
  const counts: Record<string, number> = {};
  try {
    const write = async (line: Line) => void (await out.write(`${serializeRecord(line)}\n`));
    await write({ format: "vexil-backup", version: 2, id: randomUUID(), createdAt: clock() });
    for (const service of distinctStores(config)) {
      const engine = await openForBackup(config, service);
      if (!engine) continue;
      try {
        await write({ store: service });
        counts[service] = await backupStore(engine, write);
        await write({ storeEnd: service, documents: counts[service] });
      } finally {
        await engine.close();
      }
      if (service === "admin" && counts.admin === 0) {
        throw new Error(
          `Nothing to back up: no Vexil data in ${where(config, "admin")} (set DATA_DIR or MONGODB_URL as the server has them)`,
        );
      }
    }
    if (counts.admin === undefined) {
      throw new Error(
        `Nothing to back up: no Vexil data in ${where(config, "admin")} (set DATA_DIR or MONGODB_URL as the server has them)`,
      );
    }
    await write({ end: counts });
    await out.sync();
    await out.close();
    await rename(partial, file);
    return counts;
  } catch (err) {
    await out.close().catch(() => undefined);
    await rm(partial, { force: true });
    throw err;
  }
}

/** The file's lines, parsed one at a time. */
async function* linesOf(file: string): AsyncGenerator<Line> {
  const lines = createInterface({ input: createReadStream(file, "utf8"), crlfDelay: Infinity });
  for await (const line of lines) if (line !== "") yield parseRecord<Line>(line);
}

/**
 * Reads the file once without restoring anything: a header this version writes, known services,
 * store formats this release reads, and the closing line (a file cut short has none). Version 1
 * files (one EJSON document) are read whole, as they were written.
 */
async function checkFile(file: string): Promise<{ header: Header } | { legacy: LegacyBackup }> {
  const lines = createInterface({ input: createReadStream(file, "utf8"), crlfDelay: Infinity });
  let first: string | undefined;
  let last = "";
  for await (const line of lines) {
    if (line === "") continue;
    first ??= line;
    last = line;
    if (line.startsWith('{"store":')) {
      const { store } = parseRecord<{ store: string }>(line);
      if (!(servicesWithStore as readonly string[]).includes(store))
        throw new Error(`${file} holds a store for an unknown service ${store}`);
    }
    if (line.startsWith(`{"collection":${JSON.stringify(formatCollection)},`)) {
      assertReadableFormats(file, parseRecord<{ documents: FormatMarker[] }>(line).documents);
    }
  }
  let header: { format?: string; version?: number; id?: unknown } | undefined;
  try {
    header = first === undefined ? undefined : parseRecord<{ format?: string; version?: number; id?: unknown }>(first);
  } catch {
    header = undefined;
  }
  if (header?.format === "vexil-backup" && header.version === 1) {
    const legacy = parseRecord<LegacyBackup>(await readFile(file, "utf8"));
    for (const [service, store] of Object.entries(legacy.stores)) {
      if (!(servicesWithStore as readonly string[]).includes(service))
        throw new Error(`${file} holds a store for an unknown service ${service}`);
      assertReadableFormats(file, (store.collections[formatCollection] ?? []) as FormatMarker[]);
    }
    return { legacy };
  }
  if (header?.format !== "vexil-backup" || header.version !== 2 || typeof header.id !== "string") {
    throw new Error(`${file} is not a Vexil backup (version 1 or 2)`);
  }
  if (!last.startsWith('{"end":')) throw new Error(`${file} is incomplete (it does not end as a backup ends): nothing was restored`);
  return { header: header as unknown as Header };
}

/** What version 1 wrote: the whole installation as one document. */
interface LegacyBackup {
  format: "vexil-backup";
  version: 1;
  createdAt: Date;
  stores: Record<string, { collections: Record<string, BaseDocument[]>; sequences: Record<string, number> }>;
}

/** A version 1 backup as the lines version 2 writes. */
function* legacyLines(backup: LegacyBackup): Generator<Line> {
  for (const [store, { collections, sequences }] of Object.entries(backup.stores)) {
    yield { store };
    for (const [collection, docs] of Object.entries(collections)) {
      for (let start = 0; start < docs.length; start += 1000) yield { collection, documents: docs.slice(start, start + 1000) };
    }
    yield { sequences };
    yield { storeEnd: store, documents: Object.values(collections).flat().length };
  }
}

/**
 * Restores a backup into empty stores (a fresh DATA_DIR or fresh databases), with Vexil stopped.
 * Each chunk is written in a transaction of its own with a record of progress: a restore that
 * stopped goes on where it stopped when run again with the same file.
 */
export async function restoreInstallation(config: PlatformConfig, file: string): Promise<Record<string, number>> {
  const checked = await checkFile(file);
  const backupId = "header" in checked ? checked.header.id : `v1-${new Date(checked.legacy.createdAt).toISOString()}`;
  // One pass over the lines, shared by the loop over stores and each store's section.
  const lines: AsyncIterator<Line> | Iterator<Line> = "header" in checked ? linesOf(file) : legacyLines(checked.legacy);
  const restored: Record<string, number> = {};
  let resumed = false;
  for (let line = await lines.next(); !line.done; line = await lines.next()) {
    if (!("store" in line.value)) continue;
    const service = line.value.store;
    if (!(servicesWithStore as readonly string[]).includes(service))
      throw new Error(`${file} holds a store for an unknown service ${service}`);
    let documents = 0;
    /** The store's records, up to the line that closes it (the whole section, whatever the restore reads of it). */
    async function* section(): AsyncGenerator<StoreRecord> {
      for (let next = await lines.next(); !next.done; next = await lines.next()) {
        if ("storeEnd" in next.value) {
          documents = next.value.documents;
          return;
        }
        yield next.value as StoreRecord;
      }
      throw new Error(`${file} ends inside the store ${service}`);
    }
    const records = section();
    const { database, dir } = storeLocation(config, service);
    const engine = config.MONGODB_URL
      ? await createMongoEngine({ url: config.MONGODB_URL, database })
      : await createEmbeddedEngine({ dir });
    try {
      if (!(await restoreStore(engine, backupId, records)).finishedBefore) resumed = true;
      // A store already restored from this backup reads none of its section: pass over the rest of it.
      for await (const _ of records) void _;
    } catch (err) {
      throw new Error(`Restoring ${service} into ${where(config, service)} failed: ${(err as Error).message}`, { cause: err });
    } finally {
      await engine.close();
    }
    restored[service] = documents;
  }
  // Every store had finished before: this is no restore that stopped, but the same one again.
  if (!resumed) {
    throw new Error(`The stores are not empty: ${file} was already restored into them; restore into a fresh data directory or database`);
  }
  return restored;
}
