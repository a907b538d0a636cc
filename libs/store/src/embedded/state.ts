import { BSON } from "mongodb";
import type { Query } from "mingo/query";
import type { DocumentId, IndexKeys } from "../collection.js";
import { DuplicateKeyError, type IndexCollision } from "../errors.js";
import { getPath } from "../paths.js";
import { DateIndex, type DateRange } from "./date-index.js";
import { compileFilter, type Doc } from "./documents.js";

export interface IndexSpec {
  name: string;
  keys: IndexKeys;
  unique: boolean;
  /** Only documents matching it are in the index. */
  partialFilterExpression?: Record<string, unknown>;
}

/** One durable change. Applying a journal twice gives the same state, which makes replay safe. */
export type JournalOp =
  | { op: "put"; c: string; doc: Doc }
  | { op: "delete"; c: string; id: DocumentId }
  | { op: "index"; c: string; spec: IndexSpec }
  | { op: "sequence"; name: string; value: number };

const partialFilters = new WeakMap<IndexSpec, Query>();

/**
 * The keys a document has on an index, as MongoDB builds them: a missing field counts as null, an
 * array field gives one key per element (a multikey index: no two documents may share any of
 * them), and a document outside a partial index's filter has none.
 */
export function indexKeys(doc: Doc, spec: IndexSpec): string[] {
  if (spec.partialFilterExpression) {
    let filter = partialFilters.get(spec);
    if (!filter) partialFilters.set(spec, (filter = compileFilter(spec.partialFilterExpression)));
    if (!filter.test(doc)) return [];
  }
  let tuples: unknown[][] = [[]];
  let arrays = 0;
  for (const path of Object.keys(spec.keys)) {
    const value = getPath(doc, path) ?? null;
    const values = Array.isArray(value) && value.length > 0 ? [...new Set(value.map((item: unknown) => item ?? null))] : [value];
    if (Array.isArray(value) && ++arrays > 1) throw new Error(`cannot index parallel arrays on index ${spec.name}`);
    tuples = tuples.flatMap((tuple) => values.map((item) => [...tuple, item]));
  }
  return [...new Set(tuples.map((tuple) => BSON.EJSON.stringify(tuple)))];
}

function keyValueOf(spec: IndexSpec, key: string): Record<string, unknown> {
  const values = BSON.EJSON.parse(key) as unknown[];
  return Object.fromEntries(Object.keys(spec.keys).map((path, i) => [path, values[i]]));
}

function duplicateKey(collection: string, spec: IndexSpec, key: string): DuplicateKeyError {
  return new DuplicateKeyError(collection, spec.name, spec.keys, keyValueOf(spec, key));
}

export function duplicateId(collection: string, id: DocumentId): DuplicateKeyError {
  return new DuplicateKeyError(collection, "_id_", { _id: 1 }, { _id: id });
}

/** A value an equality filter can look up in a `Postings` map. */
export type Scalar = string | number | boolean;

export const isScalar = (value: unknown): value is Scalar =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean";

/**
 * The scalars a document holds at `path` as an equality filter on that path matches them: through
 * arrays of subdocuments, and each element of an array at the end.
 */
function scalarsAt(doc: Doc, path: string): Scalar[] {
  const value = getPath(doc, path);
  return (Array.isArray(value) ? value : [value]).filter(isScalar);
}

const isFractional = (id: DocumentId) => typeof id === "number" && !Number.isInteger(id);

/** Lookups by the first field of an index: path → scalar → the documents holding it. */
type Postings = Map<string, Map<Scalar, Set<DocumentId>>>;

/** Paths a lookup can use: the first field of an index, unless it addresses an array element by position. */
function lookupPath(spec: IndexSpec): string | undefined {
  const path = Object.keys(spec.keys)[0];
  return path && !path.split(".").some((part) => /^\d+$/.test(part)) ? path : undefined;
}

export class CollectionState {
  /** Insertion order doubles as MongoDB's natural order. */
  readonly docs = new Map<DocumentId, Doc>();
  /** Each document's place in natural order, so documents found through an index come back in that order. */
  private readonly positions = new Map<DocumentId, number>();
  private nextPosition = 0;
  /** How many `_id`s are numbers but not integers: while none are, an `_id` range can be read by enumerating it. */
  private fractionalIds = 0;
  /**
   * Whether natural order is ascending `_id` order: each document so far came with a numeric `_id`
   * above every earlier one (as an event log's sequence gives them). Then a sort on `_id` is a walk
   * in natural order, forwards or backwards, that stops at the page.
   */
  private idsAscending = true;
  private highestId = -Infinity;
  readonly indexes = new Map<string, IndexSpec>();
  /** For each unique index: key → the `_id` holding it. */
  readonly uniqueKeys = new Map<string, Map<string, DocumentId>>();
  /**
   * Equality lookups on the first field of every index, so that a filter naming an indexed value
   * reads the documents holding it instead of scanning the collection.
   */
  private readonly postings: Postings = new Map();
  /** Range lookups on Dates at the first field of every index (see DateIndex). */
  private readonly dateIndexes = new Map<string, DateIndex>();

  constructor(readonly name: string) {}

  /**
   * The `_id`s of the committed documents that may match `path` equal to one of `values`, in
   * natural order; undefined when no index covers `path`.
   */
  lookup(path: string, values: Scalar[]): DocumentId[] | undefined {
    const byValue = this.postings.get(path);
    if (!byValue) return undefined;
    const sets = values.flatMap((value) => byValue.get(value) ?? []);
    // A value most documents hold is read faster by the scan, which needs no sorting.
    if (sets.reduce((sum, ids) => sum + ids.size, 0) > this.docs.size / 2) return undefined;
    const ids = new Set<DocumentId>();
    for (const set of sets) for (const id of set) ids.add(id);
    return this.inNaturalOrder([...ids]);
  }

  /**
   * The `_id`s of the committed documents holding a Date at `path` in `range`, in natural order;
   * undefined when no index covers `path`, or when the range holds most of the collection.
   */
  dateRange(path: string, range: DateRange): DocumentId[] | undefined {
    const ids = this.dateIndexes.get(path)?.range(range);
    return ids && ids.length <= this.docs.size / 2 ? this.inNaturalOrder(ids) : undefined;
  }

  /**
   * The integer `_id`s from `low` to `high` when enumerating them is cheaper than a scan and no
   * document has a fractional numeric `_id` the enumeration would miss; undefined otherwise.
   */
  integerIdRange(low: number, high: number): DocumentId[] | undefined {
    if (this.fractionalIds > 0 || high - low + 1 > this.docs.size) return undefined;
    if (low > high) return [];
    const ids: DocumentId[] = [];
    for (let id = low; id <= high; id++) if (this.positions.has(id)) ids.push(id);
    return ids;
  }

  /** True while natural order is ascending `_id` order. */
  get inIdOrder(): boolean {
    return this.idsAscending;
  }

  /** The given committed `_id`s (others are dropped) in natural order. */
  inNaturalOrder(ids: DocumentId[]): DocumentId[] {
    return ids.filter((id) => this.positions.has(id)).sort((a, b) => this.positions.get(a)! - this.positions.get(b)!);
  }

  uniqueIndexes(): IndexSpec[] {
    return [...this.indexes.values()].filter((spec) => spec.unique);
  }

  /** Up to `limit` keys that several documents already hold on this (unique) index, with their `_id`s. */
  collisions(spec: IndexSpec, limit: number): IndexCollision[] {
    if (!spec.unique) return [];
    const holders = new Map<string, DocumentId[]>();
    for (const doc of this.docs.values()) {
      for (const key of indexKeys(doc, spec)) {
        const ids = holders.get(key);
        if (ids) ids.push(doc._id);
        else holders.set(key, [doc._id]);
      }
    }
    return [...holders]
      .filter(([, ids]) => ids.length > 1)
      .slice(0, limit)
      .map(([key, ids]) => ({ keyValue: keyValueOf(spec, key), ids }));
  }

  addIndex(spec: IndexSpec): void {
    if (spec.unique) this.uniqueKeys.set(spec.name, this.keysFor(spec));
    this.indexes.set(spec.name, spec);
    const path = lookupPath(spec);
    if (path === undefined || this.postings.has(path)) return;
    this.postings.set(path, new Map());
    const dates = new DateIndex(path);
    this.dateIndexes.set(path, dates);
    for (const doc of this.docs.values()) {
      this.post(path, doc);
      dates.add(doc);
    }
  }

  private post(path: string, doc: Doc): void {
    const byValue = this.postings.get(path)!;
    for (const value of scalarsAt(doc, path)) {
      let ids = byValue.get(value);
      if (!ids) byValue.set(value, (ids = new Set()));
      ids.add(doc._id);
    }
  }

  private keysFor(spec: IndexSpec): Map<string, DocumentId> {
    const keys = new Map<string, DocumentId>();
    if (!spec.unique) return keys;
    for (const doc of this.docs.values()) {
      for (const key of indexKeys(doc, spec)) {
        if (keys.has(key)) throw duplicateKey(this.name, spec, key);
        keys.set(key, doc._id);
      }
    }
    return keys;
  }

  put(doc: Doc): void {
    this.removeKeys(doc._id);
    if (!this.positions.has(doc._id)) {
      this.positions.set(doc._id, this.nextPosition++);
      if (isFractional(doc._id)) this.fractionalIds++;
      if (typeof doc._id !== "number" || doc._id <= this.highestId) this.idsAscending = false;
      else this.highestId = doc._id;
    }
    this.docs.set(doc._id, doc);
    for (const spec of this.uniqueIndexes()) {
      for (const key of indexKeys(doc, spec)) this.uniqueKeys.get(spec.name)!.set(key, doc._id);
    }
    for (const path of this.postings.keys()) this.post(path, doc);
    for (const dates of this.dateIndexes.values()) dates.add(doc);
  }

  delete(id: DocumentId): void {
    this.removeKeys(id);
    this.docs.delete(id);
    if (this.positions.delete(id) && isFractional(id)) this.fractionalIds--;
  }

  private removeKeys(id: DocumentId): void {
    const old = this.docs.get(id);
    if (!old) return;
    for (const [path, byValue] of this.postings) {
      for (const value of scalarsAt(old, path)) {
        const ids = byValue.get(value);
        ids?.delete(id);
        if (ids?.size === 0) byValue.delete(value);
      }
    }
    for (const dates of this.dateIndexes.values()) dates.remove(old);
    for (const spec of this.uniqueIndexes()) {
      const keys = this.uniqueKeys.get(spec.name)!;
      for (const key of indexKeys(old, spec)) {
        // Another document of the same batch may already hold the key this one gave up.
        if (keys.get(key) === id) keys.delete(key);
      }
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
  /** Sequence values taken inside the transaction, committed (or given back) with it. */
  private readonly sequences = new Map<string, number>();

  constructor(private readonly state: StoreState) {}

  get(collection: string, id: DocumentId): Doc | undefined {
    const staged = this.changes.get(collection)?.get(id);
    if (staged !== undefined) return staged ?? undefined;
    return this.state.collections.get(collection)?.docs.get(id);
  }

  /** How many documents the collection holds, as this draft sees them. */
  count(collection: string): number {
    let count = this.state.collections.get(collection)?.docs.size ?? 0;
    for (const [id, change] of this.changes.get(collection) ?? []) {
      const committed = this.state.collections.get(collection)?.docs.has(id) ?? false;
      if (change === null && committed) count--;
      else if (change !== null && !committed) count++;
    }
    return count;
  }

  /**
   * Documents that may match an equality on `path` (one of `values`) as this draft sees them, in
   * natural order, through an index: the committed ones holding a value plus everything staged (the
   * caller tests its filter on each). Undefined when no index covers `path` or the scan is cheaper.
   */
  lookup(collection: string, path: string, values: Scalar[]): Doc[] | undefined {
    const ids = this.state.collections.get(collection)?.lookup(path, values);
    return ids && this.withStaged(collection, ids);
  }

  /** Documents that may hold a Date at `path` in `range`, as this draft sees them (see `lookup`); undefined when no index helps. */
  byDateRange(collection: string, path: string, range: DateRange): Doc[] | undefined {
    const ids = this.state.collections.get(collection)?.dateRange(path, range);
    return ids && this.withStaged(collection, ids);
  }

  /** Like `byIds` for every committed integer `_id` from `low` to `high`; undefined when the scan is cheaper or needed. */
  byIntegerIdRange(collection: string, low: number, high: number): Doc[] | undefined {
    const committed = this.state.collections.get(collection);
    if (!committed) return undefined;
    const ids = committed.integerIdRange(low, high);
    return ids && this.withStaged(collection, ids);
  }

  /** The documents with these `_id`s (or staged in this draft) as it sees them, in natural order. */
  byIds(collection: string, ids: DocumentId[]): Doc[] {
    return this.withStaged(collection, this.state.collections.get(collection)?.inNaturalOrder([...new Set(ids)]) ?? []);
  }

  /** Committed documents (`ids`, in natural order) merged with the staged ones, each as this draft sees it. */
  private withStaged(collection: string, ids: DocumentId[]): Doc[] {
    const committed = this.state.collections.get(collection);
    const staged = this.changes.get(collection);
    if (!committed || !staged) return ids.flatMap((id) => committed?.docs.get(id) ?? []);
    const found = new Set(ids);
    // Staged versions of committed documents keep their place; new documents follow in the order staged.
    const fresh: Doc[] = [];
    for (const [id, doc] of staged) {
      if (committed.docs.has(id)) found.add(id);
      else if (doc) fresh.push(doc);
    }
    return [...committed.inNaturalOrder([...found]).flatMap((id) => this.get(collection, id) ?? []), ...fresh];
  }

  /** True when the collection's documents, as this draft sees them, are in ascending `_id` order (nothing staged). */
  inIdOrder(collection: string): boolean {
    return !this.changes.has(collection) && (this.state.collections.get(collection)?.inIdOrder ?? true);
  }

  /** Every document of a collection as this draft sees them, in natural order (copied natively when nothing is staged). */
  allDocs(collection: string): Doc[] {
    if (this.changes.has(collection)) return [...this.all(collection)];
    return Array.from(this.state.collections.get(collection)?.docs.values() ?? []);
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
    const specs = this.state.collections.get(collection)?.uniqueIndexes() ?? [];
    const keysBySpec = specs.map((spec) => indexKeys(doc, spec));
    specs.forEach((spec, i) => {
      for (const key of keysBySpec[i]!) {
        const holders = [
          this.state.collections.get(collection)?.uniqueKeys.get(spec.name)?.get(key),
          this.stagedKeys.get(collection)?.get(spec.name)?.get(key),
        ];
        for (const holder of holders) {
          if (holder === undefined || holder === doc._id) continue;
          // A holder may have changed its key (or gone) earlier in this draft.
          const current = this.get(collection, holder);
          if (current && indexKeys(current, spec).includes(key)) throw duplicateKey(collection, spec, key);
        }
      }
    });
    specs.forEach((spec, i) => {
      for (const key of keysBySpec[i]!) this.keysOf(collection, spec.name).set(key, doc._id);
    });
    this.changesOf(collection).set(doc._id, doc);
  }

  delete(collection: string, id: DocumentId): void {
    this.changesOf(collection).set(id, null);
  }

  /** Takes the next value of a sequence for this draft: above the committed one and any taken here. */
  nextSequence(name: string): number {
    const value = Math.max(this.state.sequences.get(name) ?? 0, this.sequences.get(name) ?? 0) + 1;
    this.sequences.set(name, value);
    return value;
  }

  /** The highest value of the sequence taken in this draft, if any. */
  stagedSequence(name: string): number | undefined {
    return this.sequences.get(name);
  }

  ops(): JournalOp[] {
    const ops: JournalOp[] = [...this.sequences].map(([name, value]) => ({ op: "sequence" as const, name, value }));
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
