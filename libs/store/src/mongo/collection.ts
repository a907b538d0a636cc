import { randomUUID } from "node:crypto";
import type { ClientSession, Filter as MongoFilter, Collection as MongoCollection, UpdateFilter as MongoUpdate } from "mongodb";
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

/** Maps the port's session to the driver's. */
export type SessionResolver = (session: StoreSession | undefined) => ClientSession | undefined;

/** A thin adapter: the port is a subset of the driver's API, so most calls pass straight through. */
export class MongoStoreCollection<T extends BaseDocument> implements Collection<T> {
  constructor(
    private readonly collection: MongoCollection<Doc>,
    private readonly sessionOf: SessionResolver,
  ) {}

  get name(): string {
    return this.collection.collectionName;
  }

  insertOne(doc: T, options?: SessionOption): Promise<InsertOneResult> {
    return this.run(async () => {
      await this.collection.insertOne(doc as unknown as Doc, { session: this.sessionOf(options?.session) });
      return { insertedId: doc._id };
    });
  }

  insertMany(docs: T[], options?: SessionOption): Promise<InsertManyResult> {
    return this.run(async () => {
      const result = await this.collection.insertMany(docs as unknown as Doc[], {
        session: this.sessionOf(options?.session),
      });
      return { insertedCount: result.insertedCount, insertedIds: docs.map((doc) => doc._id) };
    });
  }

  findOne<P = T>(filter: Filter<T>, options: FindOneOptions = {}): Promise<P | null> {
    return this.run(
      () =>
        this.collection.findOne(filter as MongoFilter<Doc>, {
          projection: options.projection,
          sort: options.sort,
          session: this.sessionOf(options.session),
        }) as Promise<P | null>,
    );
  }

  find<P = T>(filter: Filter<T>, options: FindOptions = {}): Promise<P[]> {
    return this.run(
      () =>
        this.collection
          .find(filter as MongoFilter<Doc>, {
            projection: options.projection,
            sort: options.sort,
            skip: options.skip,
            limit: options.limit,
            session: this.sessionOf(options.session),
          })
          .toArray() as Promise<P[]>,
    );
  }

  countDocuments(filter: Filter<T>, options?: SessionOption): Promise<number> {
    return this.run(() => this.collection.countDocuments(filter as MongoFilter<Doc>, { session: this.sessionOf(options?.session) }));
  }

  updateOne(filter: Filter<T>, update: UpdateFilter<T>, options: UpdateOptions = {}): Promise<UpdateResult> {
    return this.run(async () =>
      toUpdateResult(
        await this.collection.updateOne(filter as MongoFilter<Doc>, withUpsertId(filter, update, options), {
          upsert: options.upsert,
          session: this.sessionOf(options.session),
        }),
      ),
    );
  }

  updateMany(filter: Filter<T>, update: UpdateFilter<T>, options: UpdateOptions = {}): Promise<UpdateResult> {
    return this.run(async () =>
      toUpdateResult(
        await this.collection.updateMany(filter as MongoFilter<Doc>, withUpsertId(filter, update, options), {
          upsert: options.upsert,
          session: this.sessionOf(options.session),
        }),
      ),
    );
  }

  findOneAndUpdate<P = T>(filter: Filter<T>, update: UpdateFilter<T>, options: FindOneAndUpdateOptions = {}): Promise<P | null> {
    return this.run(
      () =>
        this.collection.findOneAndUpdate(filter as MongoFilter<Doc>, withUpsertId(filter, update, options), {
          upsert: options.upsert,
          returnDocument: options.returnDocument ?? "before",
          projection: options.projection,
          sort: options.sort,
          session: this.sessionOf(options.session),
        }) as Promise<P | null>,
    );
  }

  replaceOne(filter: Filter<T>, replacement: T | Omit<T, "_id">, options: UpdateOptions = {}): Promise<UpdateResult> {
    let fields = replacement as Record<string, unknown>;
    if (options.upsert && !("_id" in fields) && !upsertNamesId(filter, {})) fields = { _id: randomUUID(), ...fields };
    return this.run(async () =>
      toUpdateResult(
        await this.collection.replaceOne(filter as MongoFilter<Doc>, fields, {
          upsert: options.upsert,
          session: this.sessionOf(options.session),
        }),
      ),
    );
  }

  deleteOne(filter: Filter<T>, options?: SessionOption): Promise<DeleteResult> {
    return this.run(async () => {
      const result = await this.collection.deleteOne(filter as MongoFilter<Doc>, {
        session: this.sessionOf(options?.session),
      });
      return { deletedCount: result.deletedCount };
    });
  }

  deleteMany(filter: Filter<T>, options?: SessionOption): Promise<DeleteResult> {
    return this.run(async () => {
      const result = await this.collection.deleteMany(filter as MongoFilter<Doc>, {
        session: this.sessionOf(options?.session),
      });
      return { deletedCount: result.deletedCount };
    });
  }

  createIndex(keys: IndexKeys, options: IndexOptions = {}): Promise<string> {
    return this.run(() => this.collection.createIndex(keys, { unique: options.unique, name: options.name }));
  }

  private async run<R>(call: () => Promise<R>): Promise<R> {
    try {
      return await call();
    } catch (err) {
      throw translateError(this.name, err);
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
