import { BSON } from "mongodb";
import type { BaseDocument, StoreEngine } from "./collection.js";
import { fromEJSON, toEJSON } from "./embedded/ejson.js";

/**
 * A store's content as a stream of records: its documents a bounded chunk at a time, collection by
 * collection, then its sequences. A backup writes them one per line and never holds a whole
 * collection (let alone a store) in memory; a restore writes each chunk in a transaction of its own.
 */
export type StoreRecord = { collection: string; documents: BaseDocument[] } | { sequences: Record<string, number> };

export interface BackupOptions {
  /** Most documents in one chunk (default 1000). */
  chunkDocuments?: number;
  /** Most bytes (BSON) in one chunk, so a restore's transaction stays small (default 4 MiB; one larger document is a chunk alone). */
  chunkBytes?: number;
}

/** Where a restore records how far it got, in the store it restores into (never backed up). */
const progressCollection = "restore_progress";

interface RestoreProgress extends BaseDocument {
  _id: "restore";
  backupId: string;
  /** Chunks of the stream written so far, in the stream's order. */
  chunks: number;
  finished: boolean;
}

/**
 * Reads everything a store holds as of one point in time (MongoDB: a snapshot session at one
 * cluster time; the embedded engine: writers wait meanwhile), collection by collection, and hands
 * it to `write` a chunk at a time (each awaited before the next is read). Every collection is
 * read, whatever its metadata says of its size. The sequences come last, read at the same point:
 * each is at least the largest id the copied documents took from it. Indexes are not copied: the
 * services create theirs at start. Resolves with how many documents were copied.
 */
export async function backupStore(
  engine: StoreEngine,
  write: (record: StoreRecord) => Promise<void>,
  options: BackupOptions = {},
): Promise<number> {
  const chunkDocuments = options.chunkDocuments ?? 1000;
  const chunkBytes = options.chunkBytes ?? 4 * 1024 * 1024;
  const names = (await engine.collectionNames()).filter((name) => name !== progressCollection).sort();
  return engine.withSnapshot(async (session) => {
    let copied = 0;
    for (const name of names) {
      let chunk: BaseDocument[] = [];
      let bytes = 0;
      const flush = async () => {
        if (chunk.length === 0) return;
        await write({ collection: name, documents: chunk });
        copied += chunk.length;
        chunk = [];
        bytes = 0;
      };
      for await (const batch of engine.collection(name).findInBatches({}, { session, batchSize: chunkDocuments })) {
        for (const doc of batch) {
          const size = BSON.calculateObjectSize(doc as BSON.Document);
          if (chunk.length > 0 && (chunk.length >= chunkDocuments || bytes + size > chunkBytes)) await flush();
          chunk.push(doc);
          bytes += size;
        }
      }
      await flush();
    }
    await write({ sequences: await engine.sequences({ session }) });
    return copied;
  });
}

/**
 * Writes a backup's records into a store: each chunk in a transaction of its own, together with a
 * progress record, so a restore that stops (a crash, a lost connection) goes on where it stopped
 * when run again with the same backup, writing nothing twice. A store that holds documents other
 * than such a restore's is refused, so a restore never mixes two installations; one that finished
 * restoring this backup is left as it is (`finishedBefore`), without reading the records.
 */
export async function restoreStore(
  engine: StoreEngine,
  backupId: string,
  records: AsyncIterable<StoreRecord>,
): Promise<{ written: number; finishedBefore: boolean }> {
  const progressOf = engine.collection<RestoreProgress>(progressCollection);
  let progress = await progressOf.findOne({ _id: "restore" });
  if (progress && progress.backupId !== backupId) {
    throw new Error(
      `The store is being restored from another backup (${progress.backupId}); restore into a fresh data directory or database`,
    );
  }
  if (progress?.finished) return { written: 0, finishedBefore: true };
  if (!progress) {
    const present: string[] = [];
    for (const name of await engine.collectionNames()) {
      if (name !== progressCollection && (await engine.collection(name).findOne({}, { projection: { _id: 1 } }))) present.push(name);
    }
    if (present.length > 0) {
      throw new Error(`The store is not empty (it holds ${present.join(", ")}); restore into a fresh data directory or database`);
    }
    progress = { _id: "restore", backupId, chunks: 0, finished: false };
    await progressOf.insertOne(progress);
  }
  let chunk = 0;
  let written = 0;
  for await (const record of records) {
    if ("sequences" in record) {
      await engine.raiseSequences(record.sequences);
      continue;
    }
    const position = ++chunk;
    if (position <= progress.chunks) continue;
    await engine.withTransaction(async (session) => {
      await engine.collection(record.collection).insertMany(record.documents, { session });
      await progressOf.updateOne({ _id: "restore" }, { $set: { chunks: position } }, { session });
    });
    written += record.documents.length;
  }
  await progressOf.updateOne({ _id: "restore" }, { $set: { finished: true } });
  return { written, finishedBefore: false };
}

/** Records are EJSON, so dates (and keys starting with `$`) come back exactly as they were stored. */
export const serializeRecord = (value: unknown): string => toEJSON(value);
export const parseRecord = <V>(text: string): V => fromEJSON<V>(text);
