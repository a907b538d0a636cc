import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { MongoClient } from "mongodb";
import type { StoreEngine } from "./collection.js";
import { createEmbeddedEngine } from "./embedded/engine.js";
import { createMongoEngine } from "./mongo/engine.js";

/** One engine a test runs on; each `open()` gives a fresh, empty store that `drop()` removes. */
export interface TestEngineKind {
  name: "embedded" | "mongo";
  /** Transactions run one at a time: a second waits for the first instead of racing it. */
  serial: boolean;
  /** `reopen` opens the same store again, as a restarted process would (after the first engine is closed). */
  open(): Promise<{ engine: StoreEngine; reopen(): Promise<StoreEngine>; drop(): Promise<void> }>;
}

/**
 * The engines a service's store-level tests run on: the embedded engine always, and MongoDB too
 * when MONGODB_URL names a replica set (`npm run test:mongo`), each store in a database of its own.
 * `label` names the test in the message printed when MongoDB is skipped.
 */
export function testEngineKinds(label: string): TestEngineKind[] {
  const kinds: TestEngineKind[] = [
    {
      name: "embedded",
      serial: true,
      async open() {
        const dir = await mkdtemp(path.join(tmpdir(), "vexil-test-store-"));
        const engine = await createEmbeddedEngine({ dir });
        return { engine, reopen: () => createEmbeddedEngine({ dir }), drop: () => rm(dir, { recursive: true, force: true }) };
      },
    },
  ];
  const mongoUrl = process.env.MONGODB_URL;
  if (!mongoUrl) {
    console.log(`${label}: skipped on MongoDB: MONGODB_URL not set (the embedded engine runs)`);
    return kinds;
  }
  kinds.push({
    name: "mongo",
    serial: false,
    async open() {
      const database = `vexil_test_${randomUUID().slice(0, 8)}`;
      const connect = () => createMongoEngine({ url: mongoUrl, database, clientOptions: { serverSelectionTimeoutMS: 5000 } });
      const engine = await connect();
      return {
        engine,
        reopen: connect,
        async drop() {
          const client = new MongoClient(mongoUrl);
          try {
            await client.db(database).dropDatabase();
          } finally {
            await client.close();
          }
        },
      };
    },
  });
  return kinds;
}

/** An embedded engine in a folder of its own under the system's temporary folder. */
export interface TempEngine {
  engine: StoreEngine;
  dir: string;
  /** Opens the same store again, as a restarted process would (after `engine` is closed). */
  reopen(): Promise<StoreEngine>;
  /** Closes the engine and deletes its folder. */
  remove(): Promise<void>;
}

/** A fresh, empty embedded store for one test; `label` names its folder. */
export async function tempEngine(label: string): Promise<TempEngine> {
  const dir = await mkdtemp(path.join(tmpdir(), `vexil-${label}-`));
  const engine = await createEmbeddedEngine({ dir });
  return {
    engine,
    dir,
    reopen: () => createEmbeddedEngine({ dir }),
    async remove() {
      await engine.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
