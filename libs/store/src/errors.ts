import type { IndexKeys } from "./collection.js";

/**
 * A write would give two documents the same key on a unique index (or the same `_id`). Both engines
 * throw it, so domain stores can turn it into their own error (usually NameExistsError).
 */
export class DuplicateKeyError extends Error {
  override readonly name = "DuplicateKeyError";
  /** The index name, `_id_` for the primary key. */
  readonly index: string;
  readonly keyPattern: IndexKeys;
  /** The colliding values, by field; absent when the server did not report them. */
  readonly keyValue?: Record<string, unknown>;

  constructor(collection: string, index: string, keyPattern: IndexKeys, keyValue?: Record<string, unknown>, options?: ErrorOptions) {
    super(`Duplicate key in ${collection} on index ${index}`, options);
    this.index = index;
    this.keyPattern = keyPattern;
    this.keyValue = keyValue;
  }
}
