import {
  defaultIndexName,
  type BaseDocument,
  type Collection,
  type DeleteResult,
  type Filter,
  type FindInBatchesOptions,
  type FindOneAndUpdateOptions,
  type FindOneOptions,
  type FindOptions,
  type IndexKeys,
  type IndexOptions,
  type InsertManyResult,
  type InsertOneResult,
  type SessionOption,
  type Sort,
  type UpdateFilter,
  type UpdateOptions,
  type UpdateResult,
} from "../collection.js";
import {
  applyUpdate,
  buildReplacement,
  buildUpsert,
  compileFilter,
  copyOut,
  isDocumentId,
  normalize,
  project,
  sameDocument,
  storable,
  type Doc,
} from "./documents.js";
import { IndexCollisionError, refusals } from "../errors.js";
import { getPath } from "../paths.js";
import { checkModifiedPaths, checkReplacement, checkUpdate } from "../update-rules.js";
import type { EmbeddedCore } from "./core.js";
import { dateRangeOf } from "./date-index.js";
import { isScalar, type Draft, type IndexSpec, type Scalar } from "./state.js";

/** How many colliding keys a refused unique index names. */
const collisionsReported = 10;

const noUpsert = { matchedCount: 0, modifiedCount: 0, upsertedId: null };

export class EmbeddedCollection<T extends BaseDocument> implements Collection<T> {
  constructor(
    readonly name: string,
    private readonly core: EmbeddedCore,
  ) {}

  async insertOne(doc: T, options?: SessionOption): Promise<InsertOneResult> {
    const stored = this.toStored(doc);
    await this.core.write(options?.session, (draft) => draft.insert(this.name, stored));
    return { insertedId: stored._id };
  }

  /** All-or-nothing: a duplicate anywhere inserts none of them. */
  async insertMany(docs: T[], options?: SessionOption): Promise<InsertManyResult> {
    const stored = docs.map((doc) => this.toStored(doc));
    await this.core.write(options?.session, (draft) => {
      for (const doc of stored) draft.insert(this.name, doc);
    });
    return { insertedCount: stored.length, insertedIds: stored.map((doc) => doc._id) };
  }

  async findOne<P = T>(filter: Filter<T>, options?: FindOneOptions): Promise<P | null> {
    return this.core.read(options?.session, (view) => {
      const doc = this.first(view, filter, options?.sort);
      return doc ? (copyOut(project(doc, options?.projection)) as P) : null;
    });
  }

  async find<P = T>(filter: Filter<T>, options: FindOptions = {}): Promise<P[]> {
    return this.core.read(options.session, (view) => this.findIn<P>(view, filter, options));
  }

  async *findInBatches<P = T>(filter: Filter<T>, options: FindInBatchesOptions = {}): AsyncIterable<P[]> {
    const batchSize = options.batchSize ?? 1000;
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
    // The matches as they stand now; each batch is copied out only when it is asked for.
    const matches = this.core.read(options.session, (view) => {
      const found = this.matching(view, filter);
      return options.sort
        ? (sortedOnPlainValues(found, options.sort) ?? compileFilter(filter).find<Doc>(found).sort(options.sort).all())
        : found;
    });
    for (let start = 0; start < matches.length; start += batchSize) {
      yield matches.slice(start, start + batchSize).map((doc) => copyOut(project(doc, options.projection)) as P);
    }
  }

  private findIn<P>(view: Draft, filter: Filter<T>, options: FindOptions): P[] {
    const page = this.inIdOrder(view, filter, options.sort, options.skip ?? 0, options.limit || Infinity);
    if (page) return page.map((doc) => copyOut(project(doc, options.projection)) as P);
    const matches = this.matching(view, filter);
    if ((options.limit ?? 0) >= 0) {
      // Natural order, or a sort on plain values, needs no cursor: the matches, sorted and paged
      // (mingo's cursor machinery showed in profiles of admin writes).
      const ordered = options.sort ? sortedOnPlainValues(matches, options.sort) : matches;
      if (ordered) {
        const skip = options.skip ?? 0;
        return ordered
          .slice(skip, options.limit ? skip + options.limit : undefined)
          .map((doc) => copyOut(project(doc, options.projection)) as P);
      }
    }
    let cursor = compileFilter(filter).find<Doc>(matches, options.projection);
    if (options.sort) cursor = cursor.sort(options.sort);
    if (options.skip) cursor = cursor.skip(options.skip);
    if (options.limit) cursor = cursor.limit(options.limit);
    return cursor.all().map((doc) => copyOut(doc) as P);
  }

  async countDocuments(filter: Filter<T>, options?: SessionOption): Promise<number> {
    return this.core.read(options?.session, (view) => this.matching(view, filter).length);
  }

  async estimatedDocumentCount(): Promise<number> {
    return this.core.read(undefined, (view) => view.count(this.name));
  }

  updateOne(filter: Filter<T>, update: UpdateFilter<T>, options?: UpdateOptions): Promise<UpdateResult> {
    return this.update(filter, update, options, (draft) => {
      const doc = this.first(draft, filter);
      return doc ? [doc] : [];
    });
  }

  updateMany(filter: Filter<T>, update: UpdateFilter<T>, options?: UpdateOptions): Promise<UpdateResult> {
    return this.update(filter, update, options, (draft) => this.matching(draft, filter));
  }

  async findOneAndUpdate<P = T>(filter: Filter<T>, update: UpdateFilter<T>, options: FindOneAndUpdateOptions = {}): Promise<P | null> {
    const wantAfter = options.returnDocument === "after";
    const result = await this.core.write(options.session, (draft) => {
      checkUpdate(update);
      const target = this.first(draft, filter, options.sort);
      if (target) {
        const updated = this.modify(draft, target, filter, update) ?? target;
        return wantAfter ? updated : target;
      }
      if (!options.upsert) return null;
      const inserted = storable(this.name, buildUpsert(filter, update));
      draft.insert(this.name, inserted);
      return wantAfter ? inserted : null;
    });
    return result ? (copyOut(project(result, options.projection)) as P) : null;
  }

  replaceOne(filter: Filter<T>, replacement: T | Omit<T, "_id">, options?: UpdateOptions): Promise<UpdateResult> {
    const fields = replacement as Record<string, unknown>;
    return this.core.write(options?.session, (draft) => {
      checkReplacement(fields);
      const target = this.first(draft, filter);
      if (target) {
        const next = storable(this.name, buildReplacement(target._id, fields));
        if (sameDocument(target, next)) return { matchedCount: 1, modifiedCount: 0, upsertedId: null };
        draft.put(this.name, next);
        return { matchedCount: 1, modifiedCount: 1, upsertedId: null };
      }
      if (!options?.upsert) return noUpsert;
      const id = isDocumentId(fields._id) ? fields._id : buildUpsert(filter, {})._id;
      const inserted = storable(this.name, buildReplacement(id, fields));
      draft.insert(this.name, inserted);
      return { matchedCount: 0, modifiedCount: 0, upsertedId: id };
    });
  }

  deleteOne(filter: Filter<T>, options?: SessionOption): Promise<DeleteResult> {
    return this.core.write(options?.session, (draft) => {
      const doc = this.first(draft, filter);
      if (doc) draft.delete(this.name, doc._id);
      return { deletedCount: doc ? 1 : 0 };
    });
  }

  deleteMany(filter: Filter<T>, options?: SessionOption): Promise<DeleteResult> {
    return this.core.write(options?.session, (draft) => {
      const docs = this.matching(draft, filter);
      for (const doc of docs) draft.delete(this.name, doc._id);
      return { deletedCount: docs.length };
    });
  }

  async createIndex(keys: IndexKeys, options: IndexOptions = {}): Promise<string> {
    const spec: IndexSpec = { name: options.name ?? defaultIndexName(keys), keys, unique: options.unique ?? false };
    if (options.partialFilterExpression) spec.partialFilterExpression = normalize(options.partialFilterExpression);
    return this.core.exclusive(async () => {
      const collection = this.core.state.collection(this.name);
      const existing = collection.indexes.get(spec.name);
      if (existing) {
        if (JSON.stringify(existing) !== JSON.stringify(spec)) throw refusals.indexSpecConflict(spec.name);
        return spec.name;
      }
      const sameKeys = [...collection.indexes.values()].find(
        (other) =>
          JSON.stringify(other.keys) === JSON.stringify(spec.keys) &&
          JSON.stringify(other.partialFilterExpression) === JSON.stringify(spec.partialFilterExpression),
      );
      if (sameKeys) throw refusals.indexNameTaken(sameKeys.name);
      const collisions = collection.collisions(spec, collisionsReported);
      if (collisions.length > 0) throw new IndexCollisionError(this.name, spec.name, spec.keys, collisions);
      await this.core.commit([{ op: "index", c: this.name, spec }]);
      return spec.name;
    });
  }

  private update(
    filter: Filter<T>,
    update: UpdateFilter<T>,
    options: UpdateOptions | undefined,
    targets: (draft: Draft) => Doc[],
  ): Promise<UpdateResult> {
    return this.core.write(options?.session, (draft) => {
      checkUpdate(update);
      const docs = targets(draft);
      if (docs.length === 0) {
        if (!options?.upsert) return noUpsert;
        const inserted = storable(this.name, buildUpsert(filter, update));
        draft.insert(this.name, inserted);
        return { matchedCount: 0, modifiedCount: 0, upsertedId: inserted._id };
      }
      const modifiedCount = docs.filter((doc) => this.modify(draft, doc, filter, update)).length;
      return { matchedCount: docs.length, modifiedCount, upsertedId: null };
    });
  }

  /** Stages the updated version of `doc` and returns it, or undefined when the update changes nothing. */
  private modify(draft: Draft, doc: Doc, filter: Filter<T>, update: UpdateFilter<T>): Doc | undefined {
    checkModifiedPaths(update as Record<string, unknown>);
    const next = copyOut(doc);
    if (!applyUpdate(next, update, filter)) return undefined;
    const stored = storable(this.name, next);
    draft.put(this.name, stored);
    return stored;
  }

  private toStored(doc: T): Doc {
    if (!isDocumentId(doc?._id)) throw new TypeError(`A document of ${this.name} needs a string or number _id`);
    return storable(this.name, doc as unknown as Doc);
  }

  /**
   * The documents `filter` may match: the one its `_id` names, or those an index finds for an
   * equality, or a range on Dates, it holds on an indexed field; otherwise the whole collection.
   */
  private candidates(view: Draft, filter: Filter<T>): Doc[] {
    if (isDocumentId(filter._id)) {
      const doc = view.get(this.name, filter._id);
      return doc ? [doc] : [];
    }
    const ids = equalityValues(filter._id);
    if (ids) return view.byIds(this.name, ids.filter(isDocumentId));
    const range = integerRange(filter._id);
    const inRange = range && view.byIntegerIdRange(this.name, range.low, range.high);
    if (inRange) return inRange;
    for (const [path, condition] of Object.entries(filter)) {
      const values = path.startsWith("$") ? undefined : equalityValues(condition);
      const found = values && view.lookup(this.name, path, values);
      if (found) return found;
    }
    for (const [path, condition] of Object.entries(filter)) {
      const range = path.startsWith("$") ? undefined : dateRangeOf(condition);
      const found = range && view.byDateRange(this.name, path, range);
      if (found) return found;
    }
    return view.allDocs(this.name);
  }

  /**
   * A page sorted on `_id` alone, when the collection holds its documents in `_id` order (see
   * `CollectionState.inIdOrder`): the candidates are walked in that order or backwards until the
   * page is full, instead of sorting every match. Undefined when that does not apply.
   */
  private inIdOrder(view: Draft, filter: Filter<T>, sort: Sort | undefined, skip: number, limit: number): Doc[] | undefined {
    const direction = sort && Object.keys(sort).length === 1 ? sort._id : undefined;
    if (direction === undefined || !view.inIdOrder(this.name)) return undefined;
    const docs = this.candidates(view, filter);
    const matches = matcher(filter);
    const page: Doc[] = [];
    let skipped = 0;
    for (let i = direction === 1 ? 0 : docs.length - 1; i >= 0 && i < docs.length && page.length < limit; i += direction) {
      if (!matches(docs[i]!)) continue;
      if (skipped < skip) skipped++;
      else page.push(docs[i]!);
    }
    return page;
  }

  private matching(view: Draft, filter: Filter<T>): Doc[] {
    return this.candidates(view, filter).filter(matcher(filter));
  }

  private first(view: Draft, filter: Filter<T>, sort?: Sort): Doc | undefined {
    // The commonest filter, `{ _id }` alone, is answered without compiling a query (a cost per call that showed in profiles).
    if (isDocumentId(filter._id) && Object.keys(filter).length === 1) return view.get(this.name, filter._id);
    const inOrder = this.inIdOrder(view, filter, sort, 0, 1);
    if (inOrder) return inOrder[0];
    if (sort) {
      const matches = this.matching(view, filter);
      return (sortedOnPlainValues(matches, sort) ?? compileFilter(filter).find<Doc>(matches).sort(sort).all())[0];
    }
    return this.candidates(view, filter).find(matcher(filter));
  }
}

type PlainSortValue = "string" | "number" | "date";

/** The kind of a value `sortedOnPlainValues` can order, or undefined. */
function plainSortValue(value: unknown): PlainSortValue | undefined {
  if (typeof value === "string") return "string";
  if (typeof value === "number") return Number.isNaN(value) ? undefined : "number";
  return value instanceof Date && !Number.isNaN(value.getTime()) ? "date" : undefined;
}

/**
 * `docs` in the order mingo's `$sort` gives them, when each sort key is a top-level field holding
 * values of one kind in every document (strings, numbers or Dates): a stable sort, as mingo's is
 * (strings by UTF-16 code units, as its native sort compares them). Undefined otherwise, for
 * mingo to sort.
 */
function sortedOnPlainValues(docs: Doc[], sort: Sort): Doc[] | undefined {
  const keys = Object.entries(sort);
  for (const [field] of keys) {
    if (field.includes(".")) return undefined;
    const kind = docs.length ? plainSortValue(docs[0]![field]) : undefined;
    if (docs.length && (!kind || docs.some((doc) => plainSortValue(doc[field]) !== kind))) return undefined;
  }
  return [...docs].sort((a, b) => {
    for (const [field, direction] of keys) {
      const x = a[field] as string | number | Date;
      const y = b[field] as string | number | Date;
      const order = x < y ? -1 : x > y ? 1 : 0;
      if (order !== 0) return order * direction;
    }
    return 0;
  });
}

/**
 * A test of `filter` on a document. A filter made only of equalities on scalars (`v`, `$eq`,
 * `$in`) is tested by set membership, as MongoDB matches them (the value, or an element of an
 * array there, through arrays of subdocuments): mingo compares an `$in` value by value, which
 * made a `$in` of thousands cost seconds per thousand documents. Other filters go to mingo.
 */
function matcher<T>(filter: Filter<T>): (doc: Doc) => boolean {
  const conditions: Array<{ path: string; values: Set<Scalar> }> = [];
  for (const [path, condition] of Object.entries(filter)) {
    const values = path.startsWith("$") || path.split(".").some((part) => /^\d+$/.test(part)) ? undefined : equalityValues(condition);
    if (!values) {
      const query = compileFilter(filter);
      return (doc) => query.test(doc);
    }
    conditions.push({ path, values: new Set(values) });
  }
  return (doc) =>
    conditions.every(({ path, values }) => {
      const value = getPath(doc, path);
      return Array.isArray(value) ? value.some((item) => isScalar(item) && values.has(item)) : isScalar(value) && values.has(value);
    });
}

/** The values a filter condition accepts when it is an equality (`v`, `{ $eq: v }`, `{ $in: [...] }`) on scalars only. */
function equalityValues(condition: unknown): Scalar[] | undefined {
  if (isScalar(condition)) return [condition];
  if (condition === null || typeof condition !== "object" || Array.isArray(condition)) return undefined;
  const operators = Object.entries(condition);
  if (operators.length !== 1) return undefined;
  const [operator, operand] = operators[0]!;
  if (operator === "$eq" && isScalar(operand)) return [operand];
  if (operator === "$in" && Array.isArray(operand) && operand.every(isScalar)) return operand;
  return undefined;
}

/** The integers a numeric range condition (`$gt`/`$gte` and `$lt`/`$lte`, nothing else) admits. */
function integerRange(condition: unknown): { low: number; high: number } | undefined {
  if (condition === null || typeof condition !== "object" || Array.isArray(condition)) return undefined;
  let low = -Infinity;
  let high = Infinity;
  for (const [operator, bound] of Object.entries(condition)) {
    if (typeof bound !== "number" || Number.isNaN(bound)) return undefined;
    if (operator === "$gt") low = Math.max(low, Math.floor(bound) + 1);
    else if (operator === "$gte") low = Math.max(low, Math.ceil(bound));
    else if (operator === "$lt") high = Math.min(high, Math.ceil(bound) - 1);
    else if (operator === "$lte") high = Math.min(high, Math.floor(bound));
    else return undefined;
  }
  return Number.isFinite(low) && Number.isFinite(high) ? { low, high } : undefined;
}
