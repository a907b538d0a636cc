import { BSON, MongoClient, MongoInvalidArgumentError, MongoNetworkError, MongoServerError } from "mongodb";
import { describe, expect, it } from "vitest";
import { NotReady, toVexilError } from "@vexil/errors";
import { DocumentTooLargeError, DuplicateKeyError, OperationRefusedError } from "../errors.js";
import { bulkDuplicate } from "./driver-errors.fixture.js";
import { translateError, type ErrorContext } from "./errors.js";

const outside: ErrorContext = { collection: "segments", inTransaction: false };
const inside: ErrorContext = { collection: "segments", inTransaction: true };

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
    const oversized = [
      new MongoInvalidArgumentError("Document is larger than the maximum size 16777216"),
      // An insert the server parsed but will not store: BadValue, told apart by its message.
      new MongoServerError({
        message: "object to insert too large. size in bytes: 16778262, max size: 16777216",
        code: 2,
        codeName: "BadValue",
      }),
      new MongoServerError({
        message: "BSONObj size: 16793601 (0x1004001) is invalid. Size must be between 0 and 16793600(16MB)",
        code: 10334,
      }),
      new MongoServerError({ message: "Resulting document after update is larger than 16777216", code: 17419 }),
      new MongoServerError({ message: "Document to upsert is larger than 16777216", code: 17420 }),
      new MongoServerError({ message: "Document to upsert is larger than 16777216", code: 7655103 }),
    ];
    for (const err of oversized) {
      const translated = translateError(err, outside);
      expect(translated, err.message).toBeInstanceOf(DocumentTooLargeError);
      expect(toVexilError(translated).status).toBe(413);
    }
    // Another BadValue is not a size problem.
    const other = new MongoServerError({ message: "$in needs an array", code: 2, codeName: "BadValue" });
    expect(translateError(other, outside)).toBe(other);
  });

  it("turns what MongoDB refuses of an operation's shape into OperationRefusedError, keeping its code and name", () => {
    const refused = [
      new MongoServerError({
        message: "Updating the path 'n' would create a conflict at 'n'",
        code: 40,
        codeName: "ConflictingUpdateOperators",
      }),
      new MongoServerError({ message: "Unknown modifier: $foo", code: 9, codeName: "FailedToParse" }),
      new MongoServerError({
        message: "The update path 'variants.' contains an empty field name, which is not allowed.",
        code: 56,
        codeName: "EmptyFieldName",
      }),
      new MongoServerError({ message: "Index already exists with a different name: name_1", code: 85, codeName: "IndexOptionsConflict" }),
      new MongoServerError({
        message: "An existing index has the same name as the requested index.",
        code: 86,
        codeName: "IndexKeySpecsConflict",
      }),
    ];
    for (const err of refused) {
      expect(translateError(err, outside)).toMatchObject({
        name: "OperationRefusedError",
        code: err.code,
        codeName: err.codeName,
        message: err.message,
      });
    }
    expect(translateError(new MongoInvalidArgumentError("Update document requires atomic operators"), outside)).toBeInstanceOf(
      OperationRefusedError,
    );
    const bson = new BSON.BSONError("key a\u0000b must not contain null bytes");
    expect(translateError(bson, inside)).toMatchObject({ codeName: "BSONError", code: undefined });
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
