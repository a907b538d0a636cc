import { MongoServerError } from "mongodb";
import { describe, expect, it } from "vitest";
import { DuplicateKeyError } from "../errors.js";
import { translateError } from "./errors.js";

describe("translateError", () => {
  it("turns E11000 into DuplicateKeyError with the index, pattern and values", () => {
    const server = new MongoServerError({
      message: 'E11000 duplicate key error collection: db.segments index: project_1_name_1 dup key: { project: "p", name: "n" }',
      code: 11000,
      keyPattern: { project: 1, name: 1 },
      keyValue: { project: "p", name: "n" },
    });
    const err = translateError("segments", server);
    expect(err).toBeInstanceOf(DuplicateKeyError);
    expect(err).toMatchObject({
      index: "project_1_name_1",
      keyPattern: { project: 1, name: 1 },
      keyValue: { project: "p", name: "n" },
      cause: server,
    });
  });

  it("knows the _id index without a key pattern", () => {
    const server = new MongoServerError({
      message: "E11000 duplicate key error collection: db.flags index: _id_ dup key: { _id: 1 }",
      code: 11000,
    });
    expect(translateError("flags", server)).toMatchObject({ index: "_id_", keyPattern: { _id: 1 } });
  });

  it("passes other errors through unchanged", () => {
    const conflict = new MongoServerError({ message: "WriteConflict", code: 112 });
    const plain = new Error("network");
    expect(translateError("flags", conflict)).toBe(conflict);
    expect(translateError("flags", plain)).toBe(plain);
  });
});
