import { randomUUID } from "node:crypto";
import {
  BSON,
  MongoServerError,
  type ClientSession,
  type CreateIndexesOptions,
  type Filter as MongoFilter,
  type Collection as MongoCollection,
  type UpdateFilter as MongoUpdate,
} from "mongodb";
import {
  defaultIndexName,
  type BaseDocument,
  type Collection,
  type DeleteResult,
  type DocumentId,
  type Filter,
  type FindInBatchesOptions,
  type FindOneAndUpdateOptions,
  type FindOneOptions,
  type FindOptions,
  type IndexKeys,
  type IndexOptions,
  type InsertManyResult,
  type InsertOneResult,
  type ReadConcern,
  type SessionOption,
  type StoreSession,
  type UpdateFilter,
  type UpdateOptions,
  type UpdateResult,
} from "../collection.js";
import { DocumentTooLargeError, DuplicateKeyError, IndexCollisionError, refusals } from "../errors.js";
import { upsertNamesId } from "../upsert.js";
import type { MongoSession } from "./session.js";
import { translateError, isTransient } from "./errors.js";
import { findCollisions, sameIndex, sameKeys, type ListedIndex } from "./indexes.js";

type Doc = BaseDocument & Record<string, unknown>;

/** MongoDB's largest document. */
const maxDocumentBytes = 16 * 1024 * 1024;
/** How many colliding keys a refused unique index names. */
const collisionsReported = 10;

/** What a collection needs from its engine. */
export interface MongoCollectionContext {
  /** Maps the port's session to this engine's. */
  sessionOf(session: StoreSession | undefined): MongoSession | undefined;
  /** Runs `fn` in a transaction of its own (for writes the port promises are atomic without a session); errors come back untranslated. */
  ownTransaction<R>(fn: (session: ClientSession) => Promise<R>): Promise<R>;
  /** Index names to key patterns, by collection, as listed or created by this engine. */
  indexes: Map<string, Map<string, IndexKeys>>;
  /** Takes charge of a build the caller does not wait for: its failure is reported, not thrown. */
  buildInBackground(collection: string, index: string, build: Promise<unknown>): void;
}

/**
 * The driver's index options, from the port's: only the keys that are set. An explicit `undefined`
 * would reach mongod as null, which it refuses (`unique: null` is "not convertible to bool").
 */
export function indexOptions(options: IndexOptions): CreateIndexesOptions {
  const driver: CreateIndexesOptions = {};
  if (options.unique !== undefined) driver.unique = options.unique;
  if (options.name !== undefined) driver.name = options.name;
  if (options.partialFilterExpression !== undefined) driver.partialFilterExpression = options.partialFilterExpression;
  return driver;
}

const majority = (readConcern: ReadConcern | undefined, session: ClientSession | undefined) =>
  readConcern === "majority" && !session ? { readConcern: { level: "majority" as const } } : {};

/**
 * Refuses, before sending, a document the server would refuse for its size. Past 17 MiB the
 * driver's serializer would fail first with a RangeError (its buffer is 17 MiB), not a MongoDB error.
 */
function checkSize(collection: string, doc: object): void {
  const bytes = BSON.calculateObjectSize(doc as Doc);
  if (bytes > maxDocumentBytes) throw new DocumentTooLargeError(collection, bytes);
}

/** A thin adapter: the port is a subset of the driver's API, so most calls pass straight through. */
export class MongoStoreCollection<T extends BaseDocument> implements Collection<T> {
  constructor(
    private readonly collection: MongoCollection<Doc>,
    private readonly context: MongoCollectionContext,
  ) {}

  get name(): string {
    return this.collection.collectionName;
  }

  insertOne(doc: T, options?: SessionOption): Promise<InsertOneResult> {
    return this.run(options?.session, "write", async (session) => {
      checkSize(this.name, doc);
      await this.collection.insertOne(doc as unknown as Doc, { session });
      return { insertedId: doc._id };
    });
  }

  /** Without a session MongoDB would keep the documents before a failing one: a transaction of its own makes it all or nothing. */
  insertMany(docs: T[], options?: SessionOption): Promise<InsertManyResult> {
    const insert = async (session: ClientSession) => {
      for (const doc of docs) checkSize(this.name, doc);
      const result = await this.collection.insertMany(docs as unknown as Doc[], { session });
      return { insertedCount: result.insertedCount, insertedIds: docs.map((doc) => doc._id) };
    };
    if (docs.length === 0) return Promise.resolve({ insertedCount: 0, insertedIds: [] });
    if (options?.session) return this.run(options.session, "write", (session) => insert(session!));
    return this.run(undefined, "write", () => this.context.ownTransaction(insert));
  }

  findOne<P = T>(filter: Filter<T>, options: FindOneOptions = {}): Promise<P | null> {
    return this.run(
      options.session,
      "read",
      (session) =>
        this.collection.findOne(filter as MongoFilter<Doc>, {
          projection: options.projection,
          sort: options.sort,
          session,
          ...majority(options.readConcern, session),
        }) as Promise<P | null>,
    );
  }

  find<P = T>(filter: Filter<T>, options: FindOptions = {}): Promise<P[]> {
    return this.run(
      options.session,
      "read",
      (session) =>
        this.collection
          .find(filter as MongoFilter<Doc>, {
            projection: options.projection,
            sort: options.sort,
            skip: options.skip,
            limit: options.limit,
            session,
            ...majority(options.readConcern, session),
          })
          .toArray() as Promise<P[]>,
    );
  }

  async *findInBatches<P = T>(filter: Filter<T>, options: FindInBatchesOptions = {}): AsyncIterable<P[]> {
    const batchSize = options.batchSize ?? 1000;
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
    const session = this.context.sessionOf(options.session);
    if (session?.failure !== undefined) throw refusals.transactionAborted(session.failure);
    const cursor = this.collection.find(filter as MongoFilter<Doc>, {
      projection: options.projection,
      sort: options.sort,
      batchSize,
      session: session?.clientSession,
    });
    try {
      let batch: P[] = [];
      // One cursor: the driver asks for the next batch (getMore) as the loop reaches the end of one.
      for await (const doc of cursor) {
        batch.push(doc as P);
        if (batch.length === batchSize) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    } catch (err) {
      throw this.failed(err, session);
    } finally {
      await cursor.close();
    }
  }

  countDocuments(filter: Filter<T>, options?: SessionOption): Promise<number> {
    return this.run(options?.session, "read", (session) => this.collection.countDocuments(filter as MongoFilter<Doc>, { session }));
  }

  estimatedDocumentCount(): Promise<number> {
    return this.run(undefined, "read", () => this.collection.estimatedDocumentCount());
  }

  updateOne(filter: Filter<T>, update: UpdateFilter<T>, options: UpdateOptions = {}): Promise<UpdateResult> {
    return this.run(options.session, "write", async (session) =>
      toUpdateResult(
        await this.collection.updateOne(filter as MongoFilter<Doc>, this.updateDocument(filter, update, options), {
          upsert: options.upsert,
          session,
        }),
      ),
    );
  }

  updateMany(filter: Filter<T>, update: UpdateFilter<T>, options: UpdateOptions = {}): Promise<UpdateResult> {
    return this.run(options.session, "write", async (session) =>
      toUpdateResult(
        await this.collection.updateMany(filter as MongoFilter<Doc>, this.updateDocument(filter, update, options), {
          upsert: options.upsert,
          session,
        }),
      ),
    );
  }

  findOneAndUpdate<P = T>(filter: Filter<T>, update: UpdateFilter<T>, options: FindOneAndUpdateOptions = {}): Promise<P | null> {
    return this.run(
      options.session,
      "write",
      (session) =>
        this.collection.findOneAndUpdate(filter as MongoFilter<Doc>, this.updateDocument(filter, update, options), {
          upsert: options.upsert,
          returnDocument: options.returnDocument ?? "before",
          projection: options.projection,
          sort: options.sort,
          session,
        }) as Promise<P | null>,
    );
  }

  replaceOne(filter: Filter<T>, replacement: T | Omit<T, "_id">, options: UpdateOptions = {}): Promise<UpdateResult> {
    let fields = replacement as Record<string, unknown>;
    if (options.upsert && !("_id" in fields) && !upsertNamesId(filter, {})) fields = { _id: randomUUID(), ...fields };
    return this.run(options.session, "write", async (session) => {
      checkSize(this.name, fields);
      return toUpdateResult(await this.collection.replaceOne(filter as MongoFilter<Doc>, fields, { upsert: options.upsert, session }));
    });
  }

  deleteOne(filter: Filter<T>, options?: SessionOption): Promise<DeleteResult> {
    return this.run(options?.session, "write", async (session) => {
      const result = await this.collection.deleteOne(filter as MongoFilter<Doc>, { session });
      return { deletedCount: result.deletedCount };
    });
  }

  deleteMany(filter: Filter<T>, options?: SessionOption): Promise<DeleteResult> {
    return this.run(options?.session, "write", async (session) => {
      const result = await this.collection.deleteMany(filter as MongoFilter<Doc>, { session });
      return { deletedCount: result.deletedCount };
    });
  }

  /**
   * Looks before it builds: an index already there with the same definition is answered at once
   * (no build, no wait for other members), the same keys under another name or a name reused for
   * other keys are refused as MongoDB refuses them, and a unique index over documents that already
   * collide is refused with the collisions listed. A build waits for a majority of the voting
   * members (`commitQuorum`), not all of them, so one member down does not hold it.
   */
  createIndex(keys: IndexKeys, options: IndexOptions = {}): Promise<string> {
    const name = options.name ?? defaultIndexName(keys);
    return this.run(undefined, "write", async () => {
      const existing = await this.listIndexes();
      const named = existing.find((index) => index.name === name);
      if (named) {
        if (!sameIndex(named, keys, options)) throw refusals.indexSpecConflict(name);
        return name;
      }
      const twin = existing.find((index) => sameKeys(index, keys, options.partialFilterExpression));
      if (twin) throw refusals.indexNameTaken(twin.name);
      if (options.unique) {
        const collisions = await findCollisions(this.collection, keys, options.partialFilterExpression, collisionsReported);
        if (collisions.length > 0) throw new IndexCollisionError(this.name, name, keys, collisions);
      }
      const build = this.collection.createIndex(keys, { ...indexOptions(options), name, commitQuorum: "majority" });
      this.knownIndexes().set(name, keys);
      // A unique index is a rule: nothing may be written until it holds. Any other index only makes
      // reads faster, and a build over a large collection (or waiting for its commit quorum) can
      // outlast a startup probe: the process serves meanwhile, reading by scan where it would use it.
      if (options.unique) await build;
      else this.context.buildInBackground(this.name, name, build);
      return name;
    });
  }

  /** The collection's indexes (none when it does not exist yet), remembered for error messages. */
  private async listIndexes(): Promise<ListedIndex[]> {
    try {
      const listed = (await this.collection.listIndexes().toArray()) as ListedIndex[];
      for (const index of listed) this.knownIndexes().set(index.name, index.key);
      return listed;
    } catch (err) {
      if (err instanceof MongoServerError && err.code === 26) return []; // NamespaceNotFound
      throw err;
    }
  }

  private knownIndexes(): Map<string, IndexKeys> {
    let known = this.context.indexes.get(this.name);
    if (!known) this.context.indexes.set(this.name, (known = new Map()));
    return known;
  }

  /** Keeps `_id` a string: without one from the filter or the update, MongoDB would make an ObjectId. */
  private updateDocument(filter: Filter<T>, update: UpdateFilter<T>, options: UpdateOptions): MongoUpdate<Doc> {
    checkSize(this.name, update);
    if (!options.upsert || upsertNamesId(filter, update)) return update as MongoUpdate<Doc>;
    return { ...update, $setOnInsert: { ...update.$setOnInsert, _id: randomUUID() } } as MongoUpdate<Doc>;
  }

  /**
   * Runs a driver call with the session's driver session, translating its errors into the port's.
   * A call that fails in a transaction aborts it (the server aborts it on its side): later calls
   * with the session are refused as the server would refuse them.
   */
  private async run<R>(
    session: StoreSession | undefined,
    kind: "read" | "write",
    call: (session: ClientSession | undefined) => Promise<R>,
  ): Promise<R> {
    const ours = this.context.sessionOf(session);
    if (ours?.failure !== undefined) throw refusals.transactionAborted(ours.failure);
    if (kind === "write" && ours?.kind === "snapshot") throw new TypeError("A snapshot session only reads");
    try {
      return await call(ours?.clientSession);
    } catch (err) {
      throw await this.failedWithKeyPattern(err, ours);
    }
  }

  /** The port's error for a failed call, marking the transaction aborted unless the driver will run it again. */
  private failed(err: unknown, session: MongoSession | undefined): unknown {
    const inTransaction = session?.kind === "transaction";
    const translated = translateError(err, {
      collection: this.name,
      inTransaction,
      keyPatternOf: (index) => this.context.indexes.get(this.name)?.get(index),
    });
    if (inTransaction && !isTransient(err)) session.failure = translated;
    return translated;
  }

  /** Like `failed`; a duplicate on an index this process has not seen yet gets its key pattern from the server. */
  private async failedWithKeyPattern(err: unknown, session: MongoSession | undefined): Promise<unknown> {
    let translated = this.failed(err, session);
    if (translated instanceof IndexCollisionError || !(translated instanceof DuplicateKeyError)) return translated;
    if (Object.keys(translated.keyPattern).length === 0 && translated.index !== "unknown") {
      await this.listIndexes().catch(() => undefined);
      translated = this.failed(err, session);
    }
    return translated;
  }
}

function toUpdateResult(result: { matchedCount: number; modifiedCount: number; upsertedId: unknown }): UpdateResult {
  return {
    matchedCount: result.matchedCount,
    modifiedCount: result.modifiedCount,
    upsertedId: (result.upsertedId as DocumentId | null) ?? null,
  };
}
