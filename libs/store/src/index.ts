export type {
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
  Projection,
  SessionOption,
  Sort,
  SortDirection,
  StoreEngine,
  StoreSession,
  UpdateFilter,
  UpdateOptions,
  UpdateResult,
} from "./collection.js";
export { DocumentTooLargeError, DuplicateKeyError } from "./errors.js";
export { createEmbeddedEngine, type EmbeddedEngineOptions } from "./embedded/engine.js";
export { createMongoEngine, type MongoEngineOptions } from "./mongo/engine.js";
export { backupStore, restoreStore, serializeBackup, parseBackup, type StoreBackup } from "./backup.js";
