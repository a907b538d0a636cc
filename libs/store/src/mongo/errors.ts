import {
  MongoBulkWriteError,
  MongoClientClosedError,
  MongoError,
  MongoInvalidArgumentError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from "mongodb";
import { NotReady } from "@vexil/errors";
import type { IndexKeys } from "../collection.js";
import { DocumentTooLargeError, DuplicateKeyError, OperationRefusedError } from "../errors.js";
import { getPath } from "../paths.js";

const DUPLICATE_KEY = 11000;
/**
 * A document over 16 MiB, by the server: BSONObjectTooLarge (a command over the 16 MiB + 16 KiB it
 * parses; newer servers also for an update's result), "Resulting document after update is larger
 * than 16777216" (17419), "Document to upsert is larger than 16777216" (17420, and 7655103 on newer
 * servers). An insert it can parse but not store is BadValue (2) "object to insert too large",
 * told apart from other BadValues by its message.
 */
const TOO_LARGE = new Set([10334, 17419, 17420, 7655103]);
const BAD_VALUE = 2;
/**
 * The server refusing the operation's shape: FailedToParse (an unknown update operator),
 * ConflictingUpdateOperators, DollarPrefixedFieldName, EmptyFieldName, DottedFieldName,
 * IndexOptionsConflict, IndexKeySpecsConflict. The embedded engine refuses the same (see
 * `update-rules.ts`).
 */
const REFUSED = new Set([9, 40, 52, 56, 57, 85, 86]);
/** What the driver refuses before sending, by message (it has no code). */
const DRIVER_REFUSALS = [/Update document requires atomic operators/, /Replacement document must not contain atomic operators/];
/**
 * Server codes meaning "no primary to talk to right now": an election, a node stepping down or
 * shutting down, a host unreachable from a router. The driver retries reads and writes once on these;
 * when that fails too, the store is not ready.
 */
const UNAVAILABLE = new Set([6, 7, 89, 91, 189, 9001, 10107, 11600, 11602, 13435, 13436]);

export interface ErrorContext {
  /** The collection the call was on. */
  collection: string;
  /** Inside a transaction, errors the driver retries on must reach it unchanged. */
  inTransaction: boolean;
  /** Index names to key patterns, for errors that name the index only. */
  keyPatternOf?: (index: string) => IndexKeys | undefined;
}

/** Whether the driver's `withTransaction` runs the callback again (or retries the commit) on this error. */
export function isTransient(err: unknown): boolean {
  return (
    err instanceof MongoError && (err.hasErrorLabel("TransientTransactionError") || err.hasErrorLabel("UnknownTransactionCommitResult"))
  );
}

/** The driver or server says MongoDB cannot be reached (no server selected, connection lost, no primary). */
export function isUnavailable(err: unknown): boolean {
  return (
    err instanceof MongoNetworkError ||
    err instanceof MongoServerSelectionError ||
    err instanceof MongoNotConnectedError ||
    err instanceof MongoTopologyClosedError ||
    err instanceof MongoClientClosedError ||
    (err instanceof MongoServerError && typeof err.code === "number" && UNAVAILABLE.has(err.code))
  );
}

/**
 * Turns the driver's errors into the port's: E11000 into DuplicateKeyError, an oversized document
 * into DocumentTooLargeError, an unreachable server into NotReady (503, not 500). Inside a
 * transaction, errors the driver retries on pass through unchanged; anything else passes through.
 */
export function translateError(err: unknown, context: ErrorContext): unknown {
  if (context.inTransaction && isTransient(err)) return err;
  if (isDuplicateKey(err)) return duplicateKeyError(err as MongoServerError, context);
  if (isTooLarge(err)) return new DocumentTooLargeError(context.collection, undefined, { cause: err });
  if (err instanceof MongoServerError && typeof err.code === "number" && REFUSED.has(err.code)) {
    return new OperationRefusedError(err.codeName ?? String(err.code), err.code, err.message, { cause: err });
  }
  if (err instanceof MongoInvalidArgumentError && DRIVER_REFUSALS.some((pattern) => pattern.test(err.message))) {
    return new OperationRefusedError("MongoInvalidArgumentError", undefined, err.message, { cause: err });
  }
  // The BSON serializer's, before anything is sent (a key BSON cannot hold).
  if (err instanceof Error && err.name === "BSONError" && /must not contain null bytes/.test(err.message)) {
    return new OperationRefusedError("BSONError", undefined, err.message, { cause: err });
  }
  if (isUnavailable(err) && !context.inTransaction) {
    return new NotReady(`MongoDB is not reachable: ${(err as Error).message}`);
  }
  return err;
}

function isTooLarge(err: unknown): boolean {
  if (err instanceof MongoServerError && typeof err.code === "number") {
    return TOO_LARGE.has(err.code) || (err.code === BAD_VALUE && /object to insert too large/.test(err.message));
  }
  return err instanceof MongoInvalidArgumentError && /larger than the maximum size/.test(err.message);
}

export function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === DUPLICATE_KEY;
}

/**
 * The server reports the index, its key pattern and the colliding values for a single write; for
 * `insertMany` the driver keeps only the message and the failed document, so the pattern comes
 * from the indexes this engine created and the values from that document.
 */
function duplicateKeyError(err: MongoServerError, context: ErrorContext): DuplicateKeyError {
  const failed = err instanceof MongoBulkWriteError ? err.writeErrors : undefined;
  const first = Array.isArray(failed) ? failed[0] : failed;
  const message = first?.errmsg ?? err.message;
  const index = /index: (\S+)/.exec(message)?.[1] ?? "unknown";
  const keyPattern =
    (err.keyPattern as IndexKeys | undefined) ?? (index === "_id_" ? { _id: 1 } : context.keyPatternOf?.(index)) ?? ({} as IndexKeys);
  let keyValue = err.keyValue as Record<string, unknown> | undefined;
  const doc = first?.getOperation() as Record<string, unknown> | undefined;
  if (!keyValue && doc && Object.keys(keyPattern).length > 0) {
    keyValue = Object.fromEntries(Object.keys(keyPattern).map((path) => [path, getPath(doc, path) ?? null]));
  }
  return new DuplicateKeyError(context.collection, index, keyPattern, keyValue, { cause: err });
}
