import { MongoServerError } from "mongodb";
import type { IndexKeys } from "../collection.js";
import { DuplicateKeyError } from "../errors.js";

const DUPLICATE_KEY = 11000;

/** Turns the server's duplicate key error (E11000) into DuplicateKeyError; anything else passes through. */
export function translateError(collection: string, err: unknown): unknown {
  if (!(err instanceof MongoServerError) || err.code !== DUPLICATE_KEY) return err;
  const index = /index: (\S+)/.exec(err.message)?.[1] ?? "unknown";
  const keyPattern = (err.keyPattern as IndexKeys | undefined) ?? (index === "_id_" ? { _id: 1 } : {});
  return new DuplicateKeyError(collection, index, keyPattern, err.keyValue as Record<string, unknown> | undefined, {
    cause: err,
  });
}

export function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === DUPLICATE_KEY;
}
