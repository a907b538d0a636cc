import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BSON } from "mongodb";
import { afterAll, describe, expect, it } from "vitest";
import { fromEJSON, toEJSON } from "./embedded/ejson.js";
import { createEmbeddedEngine } from "./index.js";

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Deterministic pseudo-random numbers, so a failure repeats. */
function rng(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1664525 + 1013904223) % 4294967296;
    return Math.floor((state / 4294967296) * below);
  };
}

/** Values plain data is copied for, and the ones that must take the EJSON round trip instead. */
const leaves: unknown[] = [
  "text",
  "",
  "$$dollar",
  0,
  -0,
  42,
  -1.5,
  2 ** 60,
  Number.NaN,
  Infinity,
  true,
  false,
  null,
  undefined,
  new Date("2024-05-06T07:08:09.123Z"),
  new Date(-86_400_000),
  new Date(Number.NaN),
  new BSON.ObjectId("507f1f77bcf86cd799439011"),
  new BSON.Decimal128("1.5"),
  { $date: "2024-01-01T00:00:00Z" },
  { _bsontype: "ObjectId" },
];
const keys = ["a", "b", "$set", "$$x", "a.b", "__proto__", "10", "2"];

function value(random: (below: number) => number, depth: number): unknown {
  const kind = depth > 3 ? 0 : random(4);
  if (kind === 0) return leaves[random(leaves.length)];
  if (kind === 1) return Array.from({ length: random(4) }, () => value(random, depth + 1));
  const object: Record<string, unknown> = {};
  for (let i = random(4); i > 0; i--) {
    Object.defineProperty(object, keys[random(keys.length)]!, {
      value: value(random, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return object;
}

describe("embedded engine: what a document reads back as", () => {
  it("is what the journal's EJSON round trip gives, whether it is copied as plain data or parsed", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vexil-documents-"));
    dirs.push(dir);
    const engine = await createEmbeddedEngine({ dir });
    const docs = engine.collection<{ _id: number; v: unknown }>("docs");
    const random = rng(7);
    const expected = new Map<number, unknown>();
    for (let id = 1; id <= 400; id++) {
      const v = value(random, 0);
      let roundTrip: unknown;
      try {
        roundTrip = fromEJSON<{ v: unknown }>(toEJSON({ _id: id, v })).v;
      } catch {
        // What EJSON cannot write (an invalid Date), the store refuses too.
        await expect(docs.insertOne({ _id: id, v })).rejects.toThrow();
        continue;
      }
      await docs.insertOne({ _id: id, v });
      expected.set(id, roundTrip);
      expect((await docs.findOne({ _id: id }))?.v, `document ${id}`).toStrictEqual(roundTrip);
    }
    expect(expected.size).toBeGreaterThan(300);
    await engine.close();
    // After a restart, read from the journal itself.
    const reopened = await createEmbeddedEngine({ dir });
    for (const [id, roundTrip] of expected) {
      expect((await reopened.collection<{ _id: number; v: unknown }>("docs").findOne({ _id: id }))?.v, `document ${id}`).toStrictEqual(
        roundTrip,
      );
    }
    await reopened.close();
  });
});
