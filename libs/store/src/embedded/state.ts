import { BSON } from "mongodb";
import type { DocumentId, IndexKeys } from "../collection.js";
import { DuplicateKeyError } from "../errors.js";
import { getPath, type Doc } from "./documents.js";

export interface IndexSpec {
  name: string;
  keys: IndexKeys;
  unique: boolean;
}

/** One durable change. Applying a journal twice gives the same state, which makes replay safe. */
export type JournalOp =
  | { op: "put"; c: string; doc: Doc }
  | { op: "delete"; c: string; id: DocumentId }
  | { op: "index"; c: string; spec: IndexSpec }
  | { op: "sequence"; name: string; value: number };

/** The key a document has on an index; a missing field counts as null, as in MongoDB. */
export function indexKey(doc: Doc, spec: IndexSpec): string {
  return BSON.EJSON.stringify(Object.keys(spec.keys).map((path) => getPath(doc, path) ?? null));
}

function duplicateKey(collection: string, spec: IndexSpec, doc: Doc): DuplicateKeyError {
  const keyValue = Object.fromEntries(Object.keys(spec.keys).map((path) => [path, getPath(doc, path) ?? null]));
  return new DuplicateKeyError(collection, spec.name, spec.keys, keyValue);
}

export function duplicateId(collection: string, id: DocumentId): DuplicateKeyError {
  return new DuplicateKeyError(collection, "_id_", { _id: 1 }, { _id: id });
}

export class CollectionState {
  /** Insertion order doubles as MongoDB's natural order. */
  readonly docs = new Map<DocumentId, Doc>();
  readonly indexes = new Map<string, IndexSpec>();
  /** For each unique index: key → the `_id` holding it. */
  readonly uniqueKeys = new Map<string, Map<string, DocumentId>>();

  constructor(readonly name: string) {}

  uniqueIndexes(): IndexSpec[] {
    return [...this.indexes.values()].filter((spec) => spec.unique);
  }

  /** Throws DuplicateKeyError if the documents already collide on this (unique) index. */
  checkIndex(spec: IndexSpec): void {
    this.keysFor(spec);
  }

  addIndex(spec: IndexSpec): void {
    if (spec.unique) this.uniqueKeys.set(spec.name, this.keysFor(spec));
    this.indexes.set(spec.name, spec);
  }

  private keysFor(spec: IndexSpec): Map<string, DocumentId> {
    const keys = new Map<string, DocumentId>();
    if (!spec.unique) return keys;
    for (const doc of this.docs.values()) {
      const key = indexKey(doc, spec);
      if (keys.has(key)) throw duplicateKey(this.name, spec, doc);
      keys.set(key, doc._id);
    }
    return keys;
  }

  put(doc: Doc): void {
    this.removeKeys(doc._id);
    this.docs.set(doc._id, doc);
    for (const spec of this.uniqueIndexes()) this.uniqueKeys.get(spec.name)!.set(indexKey(doc, spec), doc._id);
  }

  delete(id: DocumentId): void {
    this.removeKeys(id);
    this.docs.delete(id);
  }

  private removeKeys(id: DocumentId): void {
    const old = this.docs.get(id);
    if (!old) return;
    for (const spec of this.uniqueIndexes()) {
      const keys = this.uniqueKeys.get(spec.name)!;
      const key = indexKey(old, spec);
      // Another document of the same batch may already hold the key this one gave up.
      if (keys.get(key) === id) keys.delete(key);
    }
  }
}

/** The committed, in-memory database. */
export class StoreState {
  readonly collections = new Map<string, CollectionState>();
  readonly sequences = new Map<string, number>();

  collection(name: string): CollectionState {
    let state = this.collections.get(name);
    if (!state) {
      state = new CollectionState(name);
      this.collections.set(name, state);
    }
    return state;
  }

  apply(op: JournalOp): void {
    switch (op.op) {
      case "put":
        return this.collection(op.c).put(op.doc);
      case "delete":
        return this.collection(op.c).delete(op.id);
      case "index":
        if (!this.collection(op.c).indexes.has(op.spec.name)) this.collection(op.c).addIndex(op.spec);
        return;
      case "sequence":
        this.sequences.set(op.name, Math.max(this.sequences.get(op.name) ?? 0, op.value));
        return;
    }
  }

  /** Every op needed to rebuild this state: what a snapshot holds. */
  *ops(): Generator<JournalOp> {
    for (const [name, value] of this.sequences) yield { op: "sequence", name, value };
    for (const collection of this.collections.values()) {
      for (const spec of collection.indexes.values()) yield { op: "index", c: collection.name, spec };
      for (const doc of collection.docs.values()) yield { op: "put", c: collection.name, doc };
    }
  }
}

/**
 * Uncommitted changes over the committed state: what a transaction (or a single multi-document
 * write) stages. Reads through a draft see its own changes; unique indexes are checked against the
 * combined view, so a collision inside a transaction fails at the write, not at commit.
 */
export class Draft {
  /** collection → `_id` → the new document, or null when deleted. */
  private readonly changes = new Map<string, Map<DocumentId, Doc | null>>();
  /** collection → index → key → the staged document that took it. */
  private readonly stagedKeys = new Map<string, Map<string, Map<string, DocumentId>>>();

  constructor(private readonly state: StoreState) {}

  get(collection: string, id: DocumentId): Doc | undefined {
    const staged = this.changes.get(collection)?.get(id);
    if (staged !== undefined) return staged ?? undefined;
    return this.state.collections.get(collection)?.docs.get(id);
  }

  /** The documents of a collection as this draft sees them, in natural order. */
  *all(collection: string): Generator<Doc> {
    const staged = this.changes.get(collection);
    const committed = this.state.collections.get(collection)?.docs ?? new Map<DocumentId, Doc>();
    for (const [id, doc] of committed) {
      const change = staged?.get(id);
      if (change === undefined) yield doc;
      else if (change !== null) yield change;
    }
    if (!staged) return;
    for (const [id, change] of staged) if (change !== null && !committed.has(id)) yield change;
  }

  insert(collection: string, doc: Doc): void {
    if (this.get(collection, doc._id)) throw duplicateId(collection, doc._id);
    this.put(collection, doc);
  }

  /** Stages `doc` as the new version of its `_id`, after checking every unique index. */
  put(collection: string, doc: Doc): void {
    for (const spec of this.state.collections.get(collection)?.uniqueIndexes() ?? []) {
      const key = indexKey(doc, spec);
      const holders = [
        this.state.collections.get(collection)?.uniqueKeys.get(spec.name)?.get(key),
        this.stagedKeys.get(collection)?.get(spec.name)?.get(key),
      ];
      for (const holder of holders) {
        if (holder === undefined || holder === doc._id) continue;
        // A holder may have changed its key (or gone) earlier in this draft.
        const current = this.get(collection, holder);
        if (current && indexKey(current, spec) === key) throw duplicateKey(collection, spec, doc);
      }
    }
    for (const spec of this.state.collections.get(collection)?.uniqueIndexes() ?? []) {
      this.keysOf(collection, spec.name).set(indexKey(doc, spec), doc._id);
    }
    this.changesOf(collection).set(doc._id, doc);
  }

  delete(collection: string, id: DocumentId): void {
    this.changesOf(collection).set(id, null);
  }

  ops(): JournalOp[] {
    const ops: JournalOp[] = [];
    for (const [c, changes] of this.changes) {
      for (const [id, doc] of changes) {
        if (doc) ops.push({ op: "put", c, doc });
        else if (this.state.collections.get(c)?.docs.has(id)) ops.push({ op: "delete", c, id });
      }
    }
    return ops;
  }

  private changesOf(collection: string): Map<DocumentId, Doc | null> {
    let changes = this.changes.get(collection);
    if (!changes) this.changes.set(collection, (changes = new Map()));
    return changes;
  }

  private keysOf(collection: string, index: string): Map<string, DocumentId> {
    let byIndex = this.stagedKeys.get(collection);
    if (!byIndex) this.stagedKeys.set(collection, (byIndex = new Map()));
    let keys = byIndex.get(index);
    if (!keys) byIndex.set(index, (keys = new Map()));
    return keys;
  }
}
