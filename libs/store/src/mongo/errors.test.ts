import { createRequire } from "node:module";
import { MongoBulkWriteError, MongoClient, MongoInvalidArgumentError, MongoNetworkError, MongoServerError } from "mongodb";
import { describe, expect, it } from "vitest";
import { NotReady, toVexilError } from "@vexil/errors";
import { DocumentTooLargeError, DuplicateKeyError } from "../errors.js";
import { translateError, type ErrorContext } from "./errors.js";

// The driver's bulk-write internals are not exported from its entry point; the classes are real.
const { WriteError, BulkWriteResult } = createRequire(import.meta.url)("mongodb/lib/bulk/common.js") as {
  WriteError: new (err: Record<string, unknown>) => unknown;
  BulkWriteResult: new (result: Record<string, unknown>, ordered: boolean) => unknown;
};

const outside: ErrorContext = { collection: "segments", inTransaction: false };
const inside: ErrorContext = { collection: "segments", inTransaction: true };

/** The error `insertMany` throws when its second document collides on a unique index. */
function bulkDuplicate(errmsg: string, op: Record<string, unknown>): MongoBulkWriteError {
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

/** A real MongoServerSelectionError: a client pointed at a port nothing listens on. */
async function serverSelectionError(): Promise<unknown> {
  const client = new MongoClient("mongodb://127.0.0.1:9/?serverSelectionTimeoutMS=50&connectTimeoutMS=50");
  try {
    return await client
      .db("x")
      .command({ ping: 1 })
      .catch((err: unknown) => err);
  } finally {
    await client.close();
  }
}

describe("translateError", () => {
  it("turns E11000 into DuplicateKeyError with the index, pattern and values: a 409 if it reaches a client", () => {
    const server = new MongoServerError({
      message: 'E11000 duplicate key error collection: db.segments index: project_1_name_1 dup key: { project: "p", name: "n" }',
      code: 11000,
      keyPattern: { project: 1, name: 1 },
      keyValue: { project: "p", name: "n" },
    });
    const err = translateError(server, outside);
    expect(err).toBeInstanceOf(DuplicateKeyError);
    expect(err).toMatchObject({
      index: "project_1_name_1",
      keyPattern: { project: 1, name: 1 },
      keyValue: { project: "p", name: "n" },
      cause: server,
    });
    expect(toVexilError(err).toBody()).toMatchObject({ name: "NameExistsError" });
    expect(toVexilError(err).status).toBe(409);
  });

  it("knows the _id index without a key pattern", () => {
    const server = new MongoServerError({
      message: "E11000 duplicate key error collection: db.flags index: _id_ dup key: { _id: 1 }",
      code: 11000,
    });
    expect(translateError(server, outside)).toMatchObject({ index: "_id_", keyPattern: { _id: 1 } });
  });

  it("keeps keyPattern and keyValue for insertMany, whose bulk error carries neither", () => {
    const bulk = bulkDuplicate('E11000 duplicate key error collection: db.users index: logins_1 dup key: { logins: "bob" }', {
      _id: 2,
      logins: "bob",
      name: "Bob",
    });
    expect(bulk.keyPattern).toBeUndefined();
    const err = translateError(bulk, {
      ...outside,
      collection: "users",
      keyPatternOf: (index) => (index === "logins_1" ? { logins: 1 } : undefined),
    });
    expect(err).toBeInstanceOf(DuplicateKeyError);
    expect(err).toMatchObject({ index: "logins_1", keyPattern: { logins: 1 }, keyValue: { logins: "bob" } });
  });

  it("turns an oversized document into DocumentTooLargeError (413), from the driver or the server", () => {
    const fromDriver = new MongoInvalidArgumentError("Document is larger than the maximum size 16777216");
    const fromServer = new MongoServerError({ message: "object to insert too large", code: 10334 });
    for (const err of [fromDriver, fromServer]) {
      const translated = translateError(err, outside);
      expect(translated).toBeInstanceOf(DocumentTooLargeError);
      expect(toVexilError(translated).status).toBe(413);
    }
  });

  it("turns an unreachable server into NotReady (503) instead of an internal error", async () => {
    const selection = await serverSelectionError();
    expect((selection as Error).name).toBe("MongoServerSelectionError");
    const network = new MongoNetworkError("connection 3 to 10.0.0.7:27017 closed");
    const notPrimary = new MongoServerError({ message: "not primary", code: 10107 });
    for (const err of [selection, network, notPrimary]) {
      const translated = translateError(err, outside);
      expect(translated).toBeInstanceOf(NotReady);
      expect(toVexilError(translated).status).toBe(503);
    }
  });

  it("inside a transaction, leaves the errors the driver retries on as they are", () => {
    const network = new MongoNetworkError("connection closed");
    network.addErrorLabel("TransientTransactionError");
    const conflict = new MongoServerError({ message: "WriteConflict", code: 112, errorLabels: ["TransientTransactionError"] });
    expect(translateError(network, inside)).toBe(network);
    expect(translateError(conflict, inside)).toBe(conflict);
    // Once the driver has given up, the engine translates what it rethrows as outside.
    expect(translateError(network, outside)).toBeInstanceOf(NotReady);
  });

  it("passes other errors through unchanged", () => {
    const conflict = new MongoServerError({ message: "WriteConflict", code: 112 });
    const plain = new Error("bug");
    expect(translateError(conflict, outside)).toBe(conflict);
    expect(translateError(plain, outside)).toBe(plain);
  });
});
