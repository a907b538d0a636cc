import { MongoClient, type ClientSession, type Db, type MongoClientOptions } from "mongodb";
import { NotReady } from "@vexil/errors";
import type { BaseDocument, IndexKeys, StoreEngine, StoreSession } from "../collection.js";
import { MongoStoreCollection } from "./collection.js";
import { isDuplicateKey, translateError } from "./errors.js";

export interface MongoEngineOptions {
  url: string;
  database: string;
  /** Passed to MongoClient, e.g. timeouts. */
  clientOptions?: MongoClientOptions;
  /**
   * How long `ping` (the readiness probe) waits for a server, in ms. Requests keep the driver's
   * server selection timeout (30 s unless the URL says otherwise), long enough to ride out an
   * election; a probe must answer well within the 3 s Kubernetes gives it.
   */
  pingTimeoutMs?: number;
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
  try {
    await client.connect();
  } catch (err) {
    throw translateError(err, { collection: "(connect)", inTransaction: false });
  }
  const db = client.db(options.database);

  const sessionOf = (session: StoreSession | undefined): ClientSession | undefined => {
    if (session === undefined) return undefined;
    if (!(session instanceof MongoSession) || session.owner !== client) {
      throw new TypeError("Not a session of this store engine");
    }
    return session.clientSession;
  };

  /** The driver runs `fn` again on transient transaction errors and retries an uncertain commit. */
  const transaction = async <R>(fn: (session: ClientSession) => Promise<R>): Promise<R> => {
    const clientSession = client.startSession();
    try {
      return await clientSession.withTransaction(() => fn(clientSession));
    } catch (err) {
      // What the driver gave up on: a server that stayed unreachable is NotReady, as outside transactions.
      throw translateError(err, { collection: "(transaction)", inTransaction: false });
    } finally {
      await clientSession.endSession();
    }
  };

  const counters = db.collection<Counter>("counters");
  const indexes = new Map<string, Map<string, IndexKeys>>();
  const context = { sessionOf, ownTransaction: transaction, indexes };

  return {
    collection: <T extends BaseDocument>(name: string) => new MongoStoreCollection<T>(db.collection(name), context),

    withTransaction: (fn) => transaction((clientSession) => fn(new MongoSession(client, clientSession) as unknown as StoreSession)),

    async nextSequence(name, sequenceOptions) {
      const session = sessionOf(sequenceOptions?.session);
      // In a transaction, the counter is written by it: a concurrent transaction taking the same
      // sequence conflicts with this one and runs again once it committed, so values follow commit order.
      const next = () => counters.findOneAndUpdate({ _id: name }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: "after", session });
      let counter: Counter | null;
      try {
        try {
          counter = await next();
        } catch (err) {
          // Two first calls outside transactions can race to insert the counter; the loser retries as an update.
          if (session || !isDuplicateKey(err)) throw err;
          counter = await next();
        }
      } catch (err) {
        throw translateError(err, { collection: "counters", inTransaction: session !== undefined });
      }
      if (!counter) throw new Error(`Sequence ${name} returned no value`);
      return counter.seq;
    },

    async collectionNames() {
      const listed = await db.listCollections({}, { nameOnly: true }).toArray();
      const names = listed.map((c) => c.name).filter((name) => name !== "counters" && !name.startsWith("system."));
      const filled = await Promise.all(names.map(async (name) => ((await db.collection(name).estimatedDocumentCount()) > 0 ? name : null)));
      return filled.filter((name): name is string => name !== null);
    },

    async sequences() {
      return Object.fromEntries((await counters.find({}).toArray()).map((counter) => [counter._id, counter.seq]));
    },

    async raiseSequences(values) {
      for (const [name, value] of Object.entries(values))
        await counters.updateOne({ _id: name }, { $max: { seq: value } }, { upsert: true });
    },

    ping: () => pingDatabase(db, options.pingTimeoutMs ?? 2000),

    close: () => client.close(),
  };
}

/**
 * Asks the server for a `ping`, giving up after `timeoutMs` whatever the client's server selection
 * timeout: the abort signal cancels the wait for a server. Any failure is NotReady.
 */
export async function pingDatabase(db: Db, timeoutMs: number): Promise<void> {
  try {
    await db.command({ ping: 1 }, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const reason = err instanceof DOMException && err.name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : (err as Error).message;
    throw new NotReady(`MongoDB is not reachable: ${reason}`);
  }
}
