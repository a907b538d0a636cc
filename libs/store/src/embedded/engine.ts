import type { BaseDocument, StoreEngine } from "../collection.js";
import { EmbeddedCollection } from "./collection.js";
import { defaultTransactionTimeoutMs, EmbeddedCore } from "./core.js";
import { Journal, type StoreLog } from "./journal.js";

export interface EmbeddedEngineOptions {
  /** Where the snapshot and journal live; created if missing. One engine per directory at a time. */
  dir: string;
  /** Journal size that triggers folding it into a new snapshot. */
  compactAfterBytes?: number;
  /**
   * Reads the directory as it is, without changing it, while another process may be writing it
   * (a backup of a running Vexil): every write fails.
   */
  readOnly?: boolean;
  /** How long a write or transaction waits for the store before StoreBusyError (default 15 s). */
  transactionTimeoutMs?: number;
  /** Where a dropped torn record and a journal that cannot be written are reported (at error); nowhere without one. */
  log?: StoreLog;
}

/**
 * The embedded engine: MongoDB semantics on mingo, in memory, durable under `dir` (see Journal).
 * Meant for a single process; it takes no lock on `dir`.
 */
export async function createEmbeddedEngine(options: EmbeddedEngineOptions): Promise<StoreEngine> {
  const journal = options.readOnly
    ? await Journal.openReadOnly(options.dir)
    : await Journal.open(options.dir, options.compactAfterBytes ?? 8 * 1024 * 1024, options.log);
  const core = new EmbeddedCore(journal, options.transactionTimeoutMs ?? defaultTransactionTimeoutMs);
  return {
    collection: <T extends BaseDocument>(name: string) => new EmbeddedCollection<T>(name, core),
    withTransaction: (fn, transactionOptions) => core.transaction(fn, transactionOptions),
    withSnapshot: (fn) => core.snapshot(fn),
    nextSequence: (name, sequenceOptions) => core.nextSequence(name, sequenceOptions),
    collectionNames: async () => [...core.state.collections.keys()],
    sequences: async (sequenceOptions) => core.sequences(sequenceOptions?.session),
    raiseSequences: (values) => core.raiseSequences(values),
    ping: () => core.ping(),
    writeFailure: () => core.writeFailure(),
    close: () => core.close(),
  };
}
