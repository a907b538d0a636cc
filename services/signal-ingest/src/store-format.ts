import type { StoreFormat } from "@vexil/store";

/**
 * The formats of signal-ingest's store (see `migrateStore`). Its layout has not changed since it
 * was first written, so format 1 is that layout and the step from 0 only records it.
 */
export const signalIngestStoreFormat: StoreFormat = {
  service: "signal-ingest",
  steps: [{ description: "records the layout written before formats were recorded as format 1; no document changes", run: async () => {} }],
};
