import type { StoreFormat } from "@vexil/store";

/**
 * The formats of addon-delivery's store (see `migrateStore`). Its layout has not changed since it
 * was first written, so format 1 is that layout and the step from 0 only records it.
 */
export const addonDeliveryStoreFormat: StoreFormat = {
  service: "addon-delivery",
  steps: [{ description: "records the layout written before formats were recorded as format 1; no document changes", run: async () => {} }],
};
