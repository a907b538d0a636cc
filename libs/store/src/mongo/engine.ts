import { MongoClient, type ClientSession, type Db, type MongoClientOptions } from "mongodb";
import { NotReady } from "@vexil/errors";
import type { BaseDocument, IndexKeys, StoreEngine, StoreSession } from "../collection.js";
import { DuplicateKeyError, refusals } from "../errors.js";
import { MongoStoreCollection, type MongoCollectionContext } from "./collection.js";
import { translateError } from "./errors.js";
import { MongoSession } from "./session.js";
import { checkServer } from "./server-check.js";
import { defaultRetryPolicy, runTransaction } from "./transactions.js";

export interface MongoEngineOptions {
  url: string;
  database: string;
  /** Passed to MongoClient, e.g. timeouts (what `pinnedClientOptions` pins wins over them and the URL). */
  clientOptions?: MongoClientOptions;
  /**
   * How long `ping` (the readiness probe) waits for a server, in ms. Requests keep the driver's
   * server selection timeout (30 s unless the URL says otherwise), long enough to ride out an
   * election; a probe must answer well within the 3 s Kubernetes gives it.
   */
  pingTimeoutMs?: number;
  /** How long a transaction may take, its runs again after conflicts included, before StoreBusyError (default 15 s). */
  transactionTimeoutMs?: number;
  /**
   * Told when a non-unique index, built while the process serves (`createIndex` does not wait for
   * it), could not be built; the next start tries again. Default: nobody is told.
   */
  onIndexBuildFailed?: (failure: { collection: string; index: string; err: unknown }) => void;
}

/**
 * What the engine relies on, set whatever the connection string says (options given here win over
 * the URL's): reads from the primary (a secondary is behind, and transactions need the primary),
 * writes acknowledged by a majority and journaled (a duplicate key is reported, and what is
 * acknowledged survives a failover), retried once across an election. Reads outside transactions
 * are "local" unless they ask for "majority" (see `ReadConcern`); transactions pin their own (see
 * `transactionOptions`).
 */
export const pinnedClientOptions: MongoClientOptions = {
  readPreference: "primary",
  w: "majority",
  journal: true,
  readConcernLevel: "local",
  retryWrites: true,
  retryReads: true,
};

interface Counter extends BaseDocument {
  _id: string;
  seq: number;
}

/**
 * The MongoDB engine, on the official driver. Transactions need a replica set or a sharded cluster
 * (a single-node replica set is enough: `mongod --replSet rs0` then `rs.initiate()`); the server is
 * checked at open (see `checkServer`). Sequences live in the `counters` collection. Connects
 * before resolving, so a wrong URL fails at startup.
 */
export async function createMongoEngine(options: MongoEngineOptions): Promise<StoreEngine> {
  const client = new MongoClient(options.url, { ...options.clientOptions, ...pinnedClientOptions });
  const db = client.db(options.database);
  try {
    await client.connect();
    await checkServer(client, db);
  } catch (err) {
    await client.close().catch(() => undefined);
    throw translateError(err, { collection: "(connect)", inTransaction: false });
  }
  const retryPolicy = defaultRetryPolicy(options.transactionTimeoutMs ?? 15_000);

  const sessionOf = (session: StoreSession | undefined): MongoSession | undefined => {
    if (session === undefined) return undefined;
    if (!(session instanceof MongoSession) || session.owner !== client) {
      throw new TypeError("Not a session of this store engine");
    }
    return session;
  };

  /** Runs `fn` in a transaction of its own session; errors reach the caller as the driver threw them. */
  const transaction = async <R>(fn: (session: ClientSession) => Promise<R>, policy = retryPolicy): Promise<R> => {
    const clientSession = client.startSession();
    try {
      return await runTransaction(clientSession, () => fn(clientSession), policy);
    } finally {
      await clientSession.endSession();
    }
  };

  const indexes = new Map<string, Map<string, IndexKeys>>();
  let closing = false;
  const buildInBackground = (collectionName: string, index: string, build: Promise<unknown>) => {
    build.catch((err: unknown) => {
      indexes.get(collectionName)?.delete(index);
      // A build the client stops waiting for at close goes on in the server (MongoDB 4.4+).
      if (!closing)
        options.onIndexBuildFailed?.({
          collection: collectionName,
          index,
          err: translateError(err, { collection: collectionName, inTransaction: false }),
        });
    });
  };
  const context: MongoCollectionContext = { sessionOf, ownTransaction: (fn) => transaction(fn), indexes, buildInBackground };
  const collection = <T extends BaseDocument>(name: string) => new MongoStoreCollection<T>(db.collection(name), context);
  const counters = collection<Counter>("counters");

  return {
    collection,

    async withTransaction(fn, transactionOptions) {
      const policy =
        transactionOptions?.timeoutMs === undefined ? retryPolicy : { ...retryPolicy, timeoutMs: transactionOptions.timeoutMs };
      try {
        return await transaction(async (clientSession) => {
          const session = new MongoSession(client, clientSession, "transaction");
          const result = await fn(session as unknown as StoreSession);
          // The callback went on after a failed call: the server has aborted the transaction.
          if (session.failure !== undefined) throw refusals.transactionAborted(session.failure);
          return result;
        }, policy);
      } catch (err) {
        // What the loop gave up on: a server that stayed unreachable is NotReady, as outside transactions.
        throw translateError(err, { collection: "(transaction)", inTransaction: false });
      }
    },

    async withSnapshot(fn) {
      const clientSession = client.startSession({ snapshot: true });
      try {
        return await fn(new MongoSession(client, clientSession, "snapshot") as unknown as StoreSession);
      } finally {
        await clientSession.endSession();
      }
    },

    async nextSequence(name, sequenceOptions) {
      const session = sequenceOptions?.session;
      // In a transaction, the counter is written by it: a concurrent transaction taking the same
      // sequence conflicts with this one and runs again once it committed, so values follow commit order.
      const next = () => counters.findOneAndUpdate({ _id: name }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: "after", session });
      let counter: Counter | null;
      try {
        counter = await next();
      } catch (err) {
        // Two first calls outside transactions can race to insert the counter; the loser retries as an update.
        if (session || !(err instanceof DuplicateKeyError)) throw err;
        counter = await next();
      }
      if (!counter) throw new Error(`Sequence ${name} returned no value`);
      return counter.seq;
    },

    async collectionNames() {
      try {
        const listed = await db.listCollections({}, { nameOnly: true }).toArray();
        return listed.map((c) => c.name).filter((name) => name !== "counters" && !name.startsWith("system."));
      } catch (err) {
        throw translateError(err, { collection: "(list)", inTransaction: false });
      }
    },

    async sequences(sequenceOptions) {
      const found = await counters.find({}, { session: sequenceOptions?.session });
      return Object.fromEntries(found.map((counter) => [counter._id, counter.seq]));
    },

    async raiseSequences(values) {
      for (const [name, value] of Object.entries(values))
        await counters.updateOne({ _id: name }, { $max: { seq: value } }, { upsert: true });
    },

    ping: () => pingDatabase(db, options.pingTimeoutMs ?? 2000),
    writeFailure: () => undefined,

    close: () => {
      closing = true;
      return client.close();
    },
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
