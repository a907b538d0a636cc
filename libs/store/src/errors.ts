import { ContentTooLarge, NameExistsError, NotReady } from "@vexil/errors";
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

/** Documents that already share a key of a unique index being created: the key and their `_id`s. */
export interface IndexCollision {
  keyValue: Record<string, unknown>;
  ids: unknown[];
}

/**
 * A unique index cannot be created because documents already collide on it. Found before the index
 * is built (both engines look first), so nothing is half-built; the message names the colliding
 * keys and documents, which an operator must merge or rename before the index can exist.
 */
export class IndexCollisionError extends DuplicateKeyError {
  readonly collisions: IndexCollision[];

  constructor(collection: string, index: string, keyPattern: IndexKeys, collisions: IndexCollision[]) {
    super(collection, index, keyPattern, collisions[0]?.keyValue);
    const listed = collisions
      .map(({ keyValue, ids }) => `${JSON.stringify(keyValue)} held by ${ids.map((id) => JSON.stringify(id)).join(", ")}`)
      .join("; ");
    this.message = `Cannot create the unique index ${index} on ${collection}: documents already share its key (${listed}). Merge or rename them, then start again.`;
    this.collisions = collisions;
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

/**
 * MongoDB (the server, or the driver before sending) refuses the operation itself: an update whose
 * operators conflict, an update without operators, a field name it cannot store, a second name for
 * an index, a call in a transaction already aborted. `code` and `codeName` are MongoDB's (`code` is
 * absent for the driver's own refusals); the embedded engine refuses the same operations with the
 * same code, name and message, so a test on either engine catches the mistake. It is a bug in the
 * caller: one that reaches a client is a 500.
 */
export class OperationRefusedError extends Error {
  override readonly name = "OperationRefusedError";
  constructor(
    readonly codeName: string,
    readonly code: number | undefined,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The errors both engines refuse with, as MongoDB names them. */
export const refusals = {
  conflictingOperators: (path: string, at: string) =>
    new OperationRefusedError("ConflictingUpdateOperators", 40, `Updating the path '${path}' would create a conflict at '${at}'`),
  unknownModifier: (name: string) =>
    new OperationRefusedError(
      "FailedToParse",
      9,
      `Unknown modifier: ${name}. Expected a valid update modifier or pipeline-style update specified as an array`,
    ),
  notAnObject: (name: string) =>
    new OperationRefusedError(
      "FailedToParse",
      9,
      `Modifiers operate on fields but we found another type instead. For example: {$mod: {<field>: ...}} not {${name}: ...}`,
    ),
  dollarField: (field: string, path: string) =>
    new OperationRefusedError(
      "DollarPrefixedFieldName",
      52,
      `The dollar ($) prefixed field '${field}' in '${path}' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.`,
    ),
  emptyPath: () => new OperationRefusedError("EmptyFieldName", 56, "An empty update path is not valid."),
  emptyFieldName: (path: string) =>
    new OperationRefusedError("EmptyFieldName", 56, `The update path '${path}' contains an empty field name, which is not allowed.`),
  /** The driver's, before anything is sent. */
  noOperators: () => new OperationRefusedError("MongoInvalidArgumentError", undefined, "Update document requires atomic operators"),
  operatorsInReplacement: () =>
    new OperationRefusedError("MongoInvalidArgumentError", undefined, "Replacement document must not contain atomic operators"),
  /** The BSON serializer's, before anything is sent: BSON keys end at the first NUL. */
  nullInKey: (key: string) => new OperationRefusedError("BSONError", undefined, `key ${key} must not contain null bytes`),
  indexNameTaken: (existing: string) =>
    new OperationRefusedError("IndexOptionsConflict", 85, `Index already exists with a different name: ${existing}`),
  indexSpecConflict: (name: string) =>
    new OperationRefusedError(
      "IndexKeySpecsConflict",
      86,
      `An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: ${name}`,
    ),
  transactionAborted: (cause: unknown) =>
    new OperationRefusedError(
      "NoSuchTransaction",
      251,
      "The transaction has been aborted by an earlier failed operation: it can only end (as on MongoDB, which aborts a transaction on its first error)",
      { cause },
    ),
};

/**
 * A transaction could not commit within its deadline because other writes kept conflicting with it
 * (or, on the embedded engine, kept the store busy). Nothing of it was written; one that reaches a
 * client is a 503 to try again, instead of a request left spinning.
 */
export class StoreBusyError extends NotReady {
  constructor(message: string, options?: ErrorOptions) {
    super(message);
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

/**
 * The embedded store's journal holds a line that does not parse before its end: it cannot be
 * replayed in order, so the store refuses to open (retrying cannot help). A torn last line is not
 * this: it is a write that was never acknowledged, dropped at open with an error line.
 */
export class StoreCorruptError extends Error {
  override readonly name = "StoreCorruptError";
  constructor(
    readonly file: string,
    /** 1-based. */
    readonly line: number,
    /** Where the line starts, in bytes. */
    readonly offset: number,
    /** The line's first bytes, to find it by. */
    readonly prefix: string,
    options?: ErrorOptions,
  ) {
    super(
      `Corrupt store journal ${file} at line ${line} (byte ${offset}, starting ${JSON.stringify(prefix)}): the lines after it cannot be replayed. ` +
        `Restore a backup, or cut the journal at byte ${offset} (losing that line and every later one) to start from what precedes it.`,
      options,
    );
  }
}
