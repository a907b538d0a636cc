export type {
  BaseDocument,
  Collection,
  DeleteResult,
  DocumentId,
  Filter,
  FindInBatchesOptions,
  FindOneAndUpdateOptions,
  FindOneOptions,
  FindOptions,
  IndexKeys,
  IndexOptions,
  InsertManyResult,
  InsertOneResult,
  Projection,
  ReadConcern,
  SessionOption,
  Sort,
  SortDirection,
  StoreEngine,
  StoreSession,
  TransactionOptions,
  UpdateFilter,
  UpdateOptions,
  UpdateResult,
} from "./collection.js";
export {
  DocumentTooLargeError,
  DuplicateKeyError,
  IndexCollisionError,
  OperationRefusedError,
  StoreBusyError,
  StoreCorruptError,
  type IndexCollision,
} from "./errors.js";
export { createEmbeddedEngine, type EmbeddedEngineOptions } from "./embedded/engine.js";
export type { StoreLog } from "./embedded/journal.js";
/** A deep copy of a document read from either engine, for a change that must leave the read one as it was. */
export { copyOut as copyDocument } from "./embedded/documents.js";
export { createMongoEngine, pinnedClientOptions, type MongoEngineOptions } from "./mongo/engine.js";
export { checkServer, topologyProblem } from "./mongo/server-check.js";
export {
  currentFormat,
  formatCollection,
  migrateStore,
  storeFormatOf,
  StoreFormatTooNewError,
  type FormatLog,
  type FormatMarker,
  type FormatStep,
  type MigrationRecord,
  type StoreFormat,
} from "./format.js";
export { backupStore, restoreStore, serializeRecord, parseRecord, type BackupOptions, type StoreRecord } from "./backup.js";
