import { randomUUID } from "node:crypto";
import type {
  ClientSession,
  CreateIndexesOptions,
  Filter as MongoFilter,
  Collection as MongoCollection,
  UpdateFilter as MongoUpdate,
} from "mongodb";
import type {
  BaseDocument,
  Collection,
  DeleteResult,
  DocumentId,
  Filter,
  FindOneAndUpdateOptions,
  FindOneOptions,
  FindOptions,
  IndexKeys,
  IndexOptions,
  InsertManyResult,
  InsertOneResult,
  SessionOption,
  StoreSession,
  UpdateFilter,
  UpdateOptions,
  UpdateResult,
} from "../collection.js";
import { upsertNamesId } from "../upsert.js";
import { translateError } from "./errors.js";

type Doc = BaseDocument & Record<string, unknown>;

/** What a collection needs from its engine. */
export interface MongoCollectionContext {
  /** Maps the port's session to the driver's. */
  sessionOf(session: StoreSession | undefined): ClientSession | undefined;
  /** Runs `fn` in a transaction of its own (for writes the port promises are atomic without a session). */
  ownTransaction<R>(fn: (session: ClientSession) => Promise<R>): Promise<R>;
  /** Index names to key patterns, by collection, as this engine created them. */
  indexes: Map<string, Map<string, IndexKeys>>;
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
    return this.run(options?.session, async (session) => {
      await this.collection.insertOne(doc as unknown as Doc, { session });
      return { insertedId: doc._id };
    });
  }

  /** Without a session MongoDB would keep the documents before a failing one: a transaction of its own makes it all or nothing. */
  insertMany(docs: T[], options?: SessionOption): Promise<InsertManyResult> {
    const insert = async (session: ClientSession) => {
      const result = await this.collection.insertMany(docs as unknown as Doc[], { session });
      return { insertedCount: result.insertedCount, insertedIds: docs.map((doc) => doc._id) };
    };
    if (docs.length === 0) return Promise.resolve({ insertedCount: 0, insertedIds: [] });
    if (options?.session) return this.run(options.session, (session) => insert(session!));
    return this.run(undefined, () => this.context.ownTransaction(insert));
  }

  findOne<P = T>(filter: Filter<T>, options: FindOneOptions = {}): Promise<P | null> {
    return this.run(
      options.session,
      (session) =>
        this.collection.findOne(filter as MongoFilter<Doc>, {
          projection: options.projection,
          sort: options.sort,
          session,
        }) as Promise<P | null>,
    );
  }

  find<P = T>(filter: Filter<T>, options: FindOptions = {}): Promise<P[]> {
    return this.run(
      options.session,
      (session) =>
        this.collection
          .find(filter as MongoFilter<Doc>, {
            projection: options.projection,
            sort: options.sort,
            skip: options.skip,
            limit: options.limit,
            session,
          })
          .toArray() as Promise<P[]>,
    );
  }

  countDocuments(filter: Filter<T>, options?: SessionOption): Promise<number> {
    return this.run(options?.session, (session) => this.collection.countDocuments(filter as MongoFilter<Doc>, { session }));
  }

  estimatedDocumentCount(): Promise<number> {
    return this.run(undefined, () => this.collection.estimatedDocumentCount());
  }

  updateOne(filter: Filter<T>, update: UpdateFilter<T>, options: UpdateOptions = {}): Promise<UpdateResult> {
    return this.run(options.session, async (session) =>
      toUpdateResult(
        await this.collection.updateOne(filter as MongoFilter<Doc>, withUpsertId(filter, update, options), {
          upsert: options.upsert,
          session,
        }),
      ),
    );
  }

  updateMany(filter: Filter<T>, update: UpdateFilter<T>, options: UpdateOptions = {}): Promise<UpdateResult> {
    return this.run(options.session, async (session) =>
      toUpdateResult(
        await this.collection.updateMany(filter as MongoFilter<Doc>, withUpsertId(filter, update, options), {
          upsert: options.upsert,
          session,
        }),
      ),
    );
  }

  findOneAndUpdate<P = T>(filter: Filter<T>, update: UpdateFilter<T>, options: FindOneAndUpdateOptions = {}): Promise<P | null> {
    return this.run(
      options.session,
      (session) =>
        this.collection.findOneAndUpdate(filter as MongoFilter<Doc>, withUpsertId(filter, update, options), {
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
    return this.run(options.session, async (session) =>
      toUpdateResult(await this.collection.replaceOne(filter as MongoFilter<Doc>, fields, { upsert: options.upsert, session })),
    );
  }

  deleteOne(filter: Filter<T>, options?: SessionOption): Promise<DeleteResult> {
    return this.run(options?.session, async (session) => {
      const result = await this.collection.deleteOne(filter as MongoFilter<Doc>, { session });
      return { deletedCount: result.deletedCount };
    });
  }

  deleteMany(filter: Filter<T>, options?: SessionOption): Promise<DeleteResult> {
    return this.run(options?.session, async (session) => {
      const result = await this.collection.deleteMany(filter as MongoFilter<Doc>, { session });
      return { deletedCount: result.deletedCount };
    });
  }

  createIndex(keys: IndexKeys, options: IndexOptions = {}): Promise<string> {
    return this.run(undefined, async () => {
      const name = await this.collection.createIndex(keys, indexOptions(options));
      let known = this.context.indexes.get(this.name);
      if (!known) this.context.indexes.set(this.name, (known = new Map()));
      known.set(name, keys);
      return name;
    });
  }

  /** Runs a driver call with the session's driver session, translating its errors into the port's. */
  private async run<R>(session: StoreSession | undefined, call: (session: ClientSession | undefined) => Promise<R>): Promise<R> {
    const clientSession = this.context.sessionOf(session);
    try {
      return await call(clientSession);
    } catch (err) {
      throw translateError(err, {
        collection: this.name,
        inTransaction: clientSession !== undefined,
        keyPatternOf: (index) => this.context.indexes.get(this.name)?.get(index),
      });
    }
  }
}

/** Keeps `_id` a string: without one from the filter or the update, MongoDB would make an ObjectId. */
function withUpsertId<T>(filter: Filter<T>, update: UpdateFilter<T>, options: UpdateOptions): MongoUpdate<Doc> {
  if (!options.upsert || upsertNamesId(filter, update)) return update as MongoUpdate<Doc>;
  return { ...update, $setOnInsert: { ...update.$setOnInsert, _id: randomUUID() } } as MongoUpdate<Doc>;
}

function toUpdateResult(result: { matchedCount: number; modifiedCount: number; upsertedId: unknown }): UpdateResult {
  return {
    matchedCount: result.matchedCount,
    modifiedCount: result.modifiedCount,
    upsertedId: (result.upsertedId as DocumentId | null) ?? null,
  };
}
