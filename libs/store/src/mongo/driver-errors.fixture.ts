import { createRequire } from "node:module";
import { MongoBulkWriteError } from "mongodb";

// The driver's bulk-write internals are not exported from its entry point; the classes are real.
const { WriteError, BulkWriteResult } = createRequire(import.meta.url)("mongodb/lib/bulk/common.js") as {
  WriteError: new (err: Record<string, unknown>) => unknown;
  BulkWriteResult: new (result: Record<string, unknown>, ordered: boolean) => unknown;
};

/** The error `insertMany` throws when its second document collides on a unique index: the driver keeps only the message and the document. */
export function bulkDuplicate(errmsg: string, op: Record<string, unknown>): MongoBulkWriteError {
  const writeError = new WriteError({ index: 1, code: 11000, errmsg, op });
  const result = new BulkWriteResult(
    {
      ok: 1,
      writeErrors: [writeError],
      writeConcernErrors: [],
      insertedIds: [],
      nInserted: 1,
      nUpserted: 0,
      nMatched: 0,
      nModified: 0,
      nRemoved: 0,
      upserted: [],
    },
    true,
  );
  return new MongoBulkWriteError({ message: errmsg, code: 11000, writeErrors: [writeError] } as never, result as never);
}
