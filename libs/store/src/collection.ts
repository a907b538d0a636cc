/**
 * The storage port. Domain stores are written once against `Collection<T>` and `StoreEngine`; an
 * engine (MongoDB or the embedded mingo engine) is picked at composition time.
 *
 * Filters, updates, projections and sorts use MongoDB's query language (a subset every engine
 * honours: comparison, `$in`, `$regex`, `$and`/`$or`, `$exists`, `$elemMatch`, dotted paths; update
 * operators `$set`, `$unset`, `$inc`, `$push`, `$pull`, `$addToSet`, `$setOnInsert`, ...).
 */

/** Every stored document has a caller-chosen `_id`: a string or an integer from `nextSequence`. */
export type DocumentId = string | number;
export interface BaseDocument {
  _id: DocumentId;
}

declare const sessionBrand: unique symbol;
/**
 * A transaction handle, handed out by `withTransaction` and meaningful only to the engine that made
 * it. Pass it as `{ session }` to every call that belongs to the transaction.
 */
export interface StoreSession {
  readonly [sessionBrand]: true;
}

export interface SessionOption {
  session?: StoreSession;
}

/** A MongoDB query filter. Top-level fields of `T` are suggested; dotted paths and operators are accepted. */
export type Filter<T> = { [K in keyof T]?: unknown } & { [pathOrOperator: string]: unknown };

type Fields<T> = { [K in keyof T]?: unknown } & { [path: string]: unknown };
/** A MongoDB update document made of update operators (never a replacement: see `replaceOne`). */
export interface UpdateFilter<T> {
  $set?: Fields<T>;
  $unset?: { [path: string]: "" | 1 | true };
  $inc?: { [path: string]: number };
  $mul?: { [path: string]: number };
  $min?: Fields<T>;
  $max?: Fields<T>;
  $push?: Fields<T>;
  $pull?: Fields<T>;
  $pullAll?: { [path: string]: unknown[] };
  $addToSet?: Fields<T>;
  $pop?: { [path: string]: 1 | -1 };
  $rename?: { [path: string]: string };
  /** Applied only when an upsert inserts. */
  $setOnInsert?: Fields<T>;
}

export type SortDirection = 1 | -1;
export type Sort = Record<string, SortDirection>;
/** Inclusion (`{ name: 1 }`) or exclusion (`{ secret: 0 }`), as in MongoDB. */
export type Projection = Record<string, 0 | 1 | boolean>;

/**
 * Outside a transaction, `"majority"` reads only what a majority of the replica set has written:
 * what no failover can roll back. A reader that hands what it read to the world by id (the outbox
 * relay, the snapshot publisher, the event stream) reads this way, so it never publishes an event
 * a rollback then takes back and gives its id to another. The embedded engine has one copy: every
 * read there is of committed data. Ignored with a session (a transaction reads its snapshot).
 */
export type ReadConcern = "majority";

export interface FindOneOptions extends SessionOption {
  projection?: Projection;
  /** Which document wins when several match. */
  sort?: Sort;
  readConcern?: ReadConcern;
}
export interface FindOptions extends SessionOption {
  projection?: Projection;
  sort?: Sort;
  skip?: number;
  limit?: number;
  readConcern?: ReadConcern;
}
export interface FindInBatchesOptions extends SessionOption {
  projection?: Projection;
  sort?: Sort;
  /** Documents per batch (default 1000). */
  batchSize?: number;
}
export interface TransactionOptions {
  /**
   * How long the transaction may take to commit, waiting for the store and running its callback
   * again after conflicts included (default 15 s). Past it, StoreBusyError (503): nothing written.
   */
  timeoutMs?: number;
}
export interface UpdateOptions extends SessionOption {
  /** Insert when nothing matches: equality fields of the filter, then `$setOnInsert`, then the update. */
  upsert?: boolean;
}
export interface FindOneAndUpdateOptions extends UpdateOptions {
  /** Defaults to `'before'`, as in MongoDB. */
  returnDocument?: "before" | "after";
  projection?: Projection;
  sort?: Sort;
}
export interface IndexOptions {
  unique?: boolean;
  name?: string;
  /**
   * Only documents matching this filter are in the index (a partial index), so a unique index
   * constrains only them: `{ state: "Draft" }` for one draft per author, `{ email: { $type: "string" } }`
   * for a field that may be absent or null (which would otherwise all share the key null). MongoDB
   * accepts equality, `$exists: true`, `$gt`/`$gte`/`$lt`/`$lte`, `$type` and `$and` here.
   */
  partialFilterExpression?: Record<string, unknown>;
}
export type IndexKeys = Record<string, SortDirection>;

export interface InsertOneResult {
  insertedId: DocumentId;
}
export interface InsertManyResult {
  insertedCount: number;
  insertedIds: DocumentId[];
}
export interface UpdateResult {
  matchedCount: number;
  modifiedCount: number;
  /** The `_id` of the document an upsert inserted, otherwise null. */
  upsertedId: DocumentId | null;
}
export interface DeleteResult {
  deletedCount: number;
}

/**
 * A collection of documents. Documents returned are copies: mutating them never changes the store.
 * Methods without a session are atomic on their own; with a session they belong to its transaction.
 * Upserts need an `_id` from the filter (equality) or `$setOnInsert`; otherwise a random UUID is used.
 */
export interface Collection<T extends BaseDocument> {
  readonly name: string;
  insertOne(doc: T, options?: SessionOption): Promise<InsertOneResult>;
  /** All or nothing, with or without a session: a duplicate anywhere inserts none of them. */
  insertMany(docs: T[], options?: SessionOption): Promise<InsertManyResult>;
  /** `P` narrows the result type when a projection is given; the engine does not check it. */
  findOne<P = T>(filter: Filter<T>, options?: FindOneOptions): Promise<P | null>;
  find<P = T>(filter: Filter<T>, options?: FindOptions): Promise<P[]>;
  /**
   * The matching documents a batch at a time, for reading more than fits in memory at once (a
   * backup). On MongoDB one cursor, read with `getMore` as the loop asks for more.
   */
  findInBatches<P = T>(filter: Filter<T>, options?: FindInBatchesOptions): AsyncIterable<P[]>;
  countDocuments(filter: Filter<T>, options?: SessionOption): Promise<number>;
  /**
   * How many documents the collection holds, from its metadata: no scan, so fit for a total shown
   * beside every page. Committed documents only; MongoDB may be off after an unclean shutdown.
   */
  estimatedDocumentCount(): Promise<number>;
  updateOne(filter: Filter<T>, update: UpdateFilter<T>, options?: UpdateOptions): Promise<UpdateResult>;
  updateMany(filter: Filter<T>, update: UpdateFilter<T>, options?: UpdateOptions): Promise<UpdateResult>;
  findOneAndUpdate<P = T>(filter: Filter<T>, update: UpdateFilter<T>, options?: FindOneAndUpdateOptions): Promise<P | null>;
  /** Replaces the whole document except `_id`, which cannot change. */
  replaceOne(filter: Filter<T>, replacement: T | Omit<T, "_id">, options?: UpdateOptions): Promise<UpdateResult>;
  deleteOne(filter: Filter<T>, options?: SessionOption): Promise<DeleteResult>;
  deleteMany(filter: Filter<T>, options?: SessionOption): Promise<DeleteResult>;
  /**
   * Creates the index if it does not exist and returns its name (default `field_1_other_-1`, as in
   * MongoDB). Index definitions are schema, made at startup, so this takes no session. A unique
   * index over documents that already collide is refused before it is built, with
   * IndexCollisionError naming them. The same keys under a second name, or a name reused for
   * other keys, are refused with MongoDB's errors (OperationRefusedError 85 and 86). On MongoDB a
   * unique index is built before this resolves; any other is left building (queries scan until it
   * is ready), so a long build never holds a start.
   */
  createIndex(keys: IndexKeys, options?: IndexOptions): Promise<string>;
}

export interface StoreEngine {
  collection<T extends BaseDocument>(name: string): Collection<T>;
  /**
   * Runs `fn` in a transaction: every call made with the given session commits together or not at
   * all; a throw inside `fn` rolls everything back and is rethrown. Transactions see a snapshot and
   * the first to write a document wins: on MongoDB a transaction that writes a document another one
   * wrote since its snapshot is aborted and `fn` runs again, so `fn` should only touch the store.
   * Reads are not checked: a rule read in one document and enforced in another ("no two users with
   * this name") holds only through a unique index, or a document every such transaction writes.
   * The embedded engine runs transactions one at a time, so there `fn` runs once.
   * A failed call inside `fn` aborts the transaction, as on MongoDB: every later call with the
   * session, and the commit, fail with OperationRefusedError NoSuchTransaction. A transaction that
   * cannot commit within `timeoutMs` fails with StoreBusyError (503).
   */
  withTransaction<R>(fn: (session: StoreSession) => Promise<R>, options?: TransactionOptions): Promise<R>;
  /**
   * Runs `fn` with a session that reads the whole store as of one point in time, outside any
   * transaction (so without a transaction's time and size limits) and without writing: what a
   * backup reads. On MongoDB a snapshot session (reads at one cluster time; MongoDB keeps that
   * history for `minSnapshotHistoryWindowInSeconds`, 300 s by default); on the embedded engine
   * writers wait meanwhile.
   */
  withSnapshot<R>(fn: (session: StoreSession) => Promise<R>): Promise<R>;
  /**
   * The next integer of the named sequence, starting at 1; atomic across concurrent callers.
   * Without a session it is taken at once and never given back (a rolled-back transaction leaves a
   * gap, as database sequences do). With a session it is part of the transaction: concurrent
   * transactions taking the same sequence conflict (one of them runs again), so the values follow
   * commit order, and a rolled-back transaction gives its value back. Take a sequence either inside
   * transactions or outside them, not both.
   */
  nextSequence(name: string, options?: SessionOption): Promise<number>;
  /** Names of every collection the store has, empty ones included (a backup reads each). */
  collectionNames(): Promise<string[]>;
  /** Each sequence's last value handed out (what a backup copies besides the documents), as the session sees them. */
  sequences(options?: SessionOption): Promise<Record<string, number>>;
  /** Raises each named sequence to at least the given value (restoring a backup); never lowers one. */
  raiseSequences(values: Record<string, number>): Promise<void>;
  /** Resolves when the store can serve requests; throws NotReady otherwise. */
  ping(): Promise<void>;
  /**
   * Why every write is refused now though reads are served, for health reports: the embedded
   * engine's journal cannot be written (a full disk) until it takes the records it refused.
   * Undefined while writes are taken (always on MongoDB, whose failures are per request).
   */
  writeFailure(): string | undefined;
  close(): Promise<void>;
}

/** The default index name MongoDB gives, e.g. `{ project: 1, name: 1 }` → `project_1_name_1`. */
export function defaultIndexName(keys: IndexKeys): string {
  return Object.entries(keys)
    .map(([field, direction]) => `${field}_${direction}`)
    .join("_");
}
