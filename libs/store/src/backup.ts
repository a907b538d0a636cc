import type { BaseDocument, StoreEngine } from "./collection.js";
import { fromEJSON, toEJSON } from "./embedded/ejson.js";

/** One store's content: every document of every collection, and the sequences' last values. */
export interface StoreBackup {
  collections: Record<string, BaseDocument[]>;
  sequences: Record<string, number>;
}

/**
 * Reads everything a store holds, inside one transaction so the copy is consistent (MongoDB reads
 * one snapshot; the embedded engine holds its writers back meanwhile). Indexes are not copied: the
 * services create theirs at start.
 */
export async function backupStore(engine: StoreEngine): Promise<StoreBackup> {
  return engine.withTransaction(async (session) => {
    const collections: Record<string, BaseDocument[]> = {};
    for (const name of (await engine.collectionNames()).sort()) {
      collections[name] = await engine.collection(name).find({}, { session, sort: { _id: 1 } });
    }
    return { collections, sequences: await engine.sequences() };
  });
}

/**
 * Writes a backup into an empty store: the sequences first (a failure then leaves only a gap in
 * them), then every document in one transaction. A store that already holds documents is refused,
 * so a restore never mixes two installations.
 */
export async function restoreStore(engine: StoreEngine, backup: StoreBackup): Promise<void> {
  const present = await engine.collectionNames();
  if (present.length > 0) {
    throw new Error(`The store is not empty (it holds ${present.join(", ")}); restore into a fresh data directory or database`);
  }
  await engine.raiseSequences(backup.sequences);
  await engine.withTransaction(async (session) => {
    for (const [name, docs] of Object.entries(backup.collections)) {
      if (docs.length > 0) await engine.collection(name).insertMany(docs, { session });
    }
  });
}

/** Backups are EJSON, so dates (and keys starting with `$`) come back exactly as they were stored. */
export const serializeBackup = (value: unknown): string => toEJSON(value);
export const parseBackup = <V>(text: string): V => fromEJSON<V>(text);
