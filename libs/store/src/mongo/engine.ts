import { MongoClient, type ClientSession, type MongoClientOptions } from "mongodb";
import { NotReady } from "@vexil/errors";
import type { BaseDocument, StoreEngine, StoreSession } from "../collection.js";
import { MongoStoreCollection } from "./collection.js";
import { isDuplicateKey } from "./errors.js";

export interface MongoEngineOptions {
  url: string;
  database: string;
  /** Passed to MongoClient, e.g. timeouts. */
  clientOptions?: MongoClientOptions;
}

/** The port's session for this engine: the driver's session, wrapped so it stays opaque to callers. */
class MongoSession {
  constructor(
    readonly owner: MongoClient,
    readonly clientSession: ClientSession,
  ) {}
}

interface Counter {
  _id: string;
  seq: number;
}

/**
 * The MongoDB engine, on the official driver. Transactions need a replica set or a sharded cluster
 * (a single-node replica set is enough: `mongod --replSet rs0` then `rs.initiate()`); against a
 * standalone server `withTransaction` fails. Sequences live in the `counters` collection.
 * Connects before resolving, so a wrong URL fails at startup.
 */
export async function createMongoEngine(options: MongoEngineOptions): Promise<StoreEngine> {
  const client = new MongoClient(options.url, options.clientOptions);
  await client.connect();
  const db = client.db(options.database);

  const sessionOf = (session: StoreSession | undefined): ClientSession | undefined => {
    if (session === undefined) return undefined;
    if (!(session instanceof MongoSession) || session.owner !== client) {
      throw new TypeError("Not a session of this store engine");
    }
    return session.clientSession;
  };

  const counters = db.collection<Counter>("counters");

  return {
    collection: <T extends BaseDocument>(name: string) => new MongoStoreCollection<T>(db.collection(name), sessionOf),

    async withTransaction(fn) {
      const clientSession = client.startSession();
      try {
        // The driver retries fn on transient transaction errors and commit uncertainty.
        return await clientSession.withTransaction(() => fn(new MongoSession(client, clientSession) as unknown as StoreSession));
      } finally {
        await clientSession.endSession();
      }
    },

    async nextSequence(name) {
      const next = () => counters.findOneAndUpdate({ _id: name }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: "after" });
      let counter: Counter | null;
      try {
        counter = await next();
      } catch (err) {
        // Two first calls can race to insert the counter; the loser retries as an update.
        if (!isDuplicateKey(err)) throw err;
        counter = await next();
      }
      if (!counter) throw new Error(`Sequence ${name} returned no value`);
      return counter.seq;
    },

    async ping() {
      try {
        await db.command({ ping: 1 });
      } catch (err) {
        throw new NotReady(`MongoDB is not reachable: ${(err as Error).message}`);
      }
    },

    close: () => client.close(),
  };
}
