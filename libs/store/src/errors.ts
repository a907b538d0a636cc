import { ContentTooLarge, NameExistsError } from "@vexil/errors";
import type { IndexKeys } from "./collection.js";

/**
 * A write would give two documents the same key on a unique index (or the same `_id`). Both engines
 * throw it, so domain stores can turn it into their own error; one that reaches a client is a 409
 * (two requests raced to create the same thing), never a 500.
 */
export class DuplicateKeyError extends NameExistsError {
  /** The index name, `_id_` for the primary key. */
  readonly index: string;
  readonly keyPattern: IndexKeys;
  /** The colliding values, by field; absent when the server did not report them. */
  readonly keyValue?: Record<string, unknown>;

  constructor(collection: string, index: string, keyPattern: IndexKeys, keyValue?: Record<string, unknown>, options?: ErrorOptions) {
    const key = keyValue
      ? Object.entries(keyValue)
          .map(([field, value]) => `${field} ${JSON.stringify(value)}`)
          .join(", ")
      : `the same key on index ${index}`;
    super(`A document with ${key} already exists in ${collection}`);
    if (options?.cause !== undefined) this.cause = options.cause;
    this.index = index;
    this.keyPattern = keyPattern;
    this.keyValue = keyValue;
  }
}

/**
 * A document would be larger than MongoDB's 16 MiB limit. Both engines refuse it before writing
 * anything; one that reaches a client is a 413.
 */
export class DocumentTooLargeError extends ContentTooLarge {
  constructor(collection: string, bytes?: number, options?: ErrorOptions) {
    super(`A document in ${collection} would be larger than the store's 16 MiB limit${bytes === undefined ? "" : ` (${bytes} bytes)`}`);
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}
