import { randomUUID } from "node:crypto";
import { BSON } from "mongodb";
import { Context } from "mingo/core";
import * as projectionOperators from "mingo/operators/projection";
import * as queryOperators from "mingo/operators/query";
import { Query } from "mingo/query";
import { update as applyModifier, type Modifier } from "mingo/updater";
import type { BaseDocument, DocumentId, Filter, Projection, UpdateFilter } from "../collection.js";
import { DocumentTooLargeError } from "../errors.js";
import { checkKey } from "../update-rules.js";
import { equalityFields } from "../upsert.js";
import { fromEJSON, setData, toEJSON } from "./ejson.js";

export type Doc = BaseDocument & Record<string, unknown>;

/** MongoDB's largest document: 16 MiB of BSON. */
export const maxDocumentBytes = 16 * 1024 * 1024;

/**
 * What a document looks like once stored: the journal's EJSON round trip applied up front, so the
 * in-memory copy and the one read back after a restart are the same (Dates stay Dates, `undefined`
 * becomes null as in MongoDB) and nothing is shared with the caller's object.
 */
export function normalize<V>(value: V): V {
  return fromEJSON<V>(toEJSON(value));
}

/**
 * The EJSON text each document made by `storable` was read back from, so that comparing it and
 * writing it to the journal do not serialise it again. Stored documents are never changed in
 * place (an update applies to a copy), so the text stays theirs.
 */
const storedText = new WeakMap<Doc, string>();

/** A stored document's EJSON text. */
export function ejsonOf(doc: Doc): string {
  return storedText.get(doc) ?? toEJSON(doc);
}

/** A document ready to store in `collection`: normalized, and refused above MongoDB's size limit. */
export function storable(collection: string, doc: Doc): Doc {
  const bytes = BSON.calculateObjectSize(doc);
  if (bytes > maxDocumentBytes) throw new DocumentTooLargeError(collection, bytes);
  // Plain data reads back from EJSON as it is: copying it and writing its text directly costs a
  // fraction of the EJSON library's round trip (which showed in profiles of admin writes).
  const copy = plainCopy(doc);
  if (copy !== notPlain) {
    storedText.set(copy as Doc, JSON.stringify(ejsonReady(copy)));
    return copy as Doc;
  }
  checkKeys(doc);
  const text = toEJSON(doc);
  const stored = fromEJSON<Doc>(text);
  storedText.set(stored, text);
  return stored;
}

/** Refuses, as BSON does, a key holding a NUL anywhere in `value` (plain data is checked as it is copied). */
function checkKeys(value: unknown): void {
  if (value === null || typeof value !== "object" || value instanceof Date || ArrayBuffer.isView(value) || "_bsontype" in value) return;
  if (Array.isArray(value)) {
    for (const item of value) checkKeys(item);
    return;
  }
  for (const key of Object.keys(value)) {
    checkKey(key);
    checkKeys((value as Record<string, unknown>)[key]);
  }
}

/** The latest time relaxed EJSON writes as an ISO date (the end of year 9999, as the EJSON library has it). */
const lastIsoDate = 253402318800000;

/**
 * Plain data (see `plainCopy`) as `JSON.stringify` must see it to write the text `toEJSON` writes:
 * Dates as `$date`, keys starting with `$` given one more. Parts that need neither are shared.
 */
function ejsonReady(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (value instanceof Date) {
    const time = value.getTime();
    if (time < 0 || time >= lastIsoDate) return { $date: { $numberLong: String(time) } };
    const iso = value.toISOString();
    return { $date: value.getUTCMilliseconds() !== 0 ? iso : `${iso.slice(0, -5)}Z` };
  }
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = ejsonReady(value[i]);
      if (item !== value[i] && !out) out = value.slice(0, i);
      out?.push(item);
    }
    return out ?? value;
  }
  const source = value as Record<string, unknown>;
  const keys = Object.keys(source);
  let out: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const item = ejsonReady(source[key]);
    const renamed = key.startsWith("$") ? `$${key}` : key;
    if (!out && (item !== source[key] || renamed !== key)) {
      out = {};
      for (let j = 0; j < i; j++) setKey(out, keys[j]!, source[keys[j]!]);
    }
    if (out) setKey(out, renamed, item);
  }
  return out ?? value;
}

/** Plain assignment is the fast path; only `__proto__` needs defining as data. */
function setKey(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") setData(object, key, value);
  else object[key] = value;
}

/** A copy for the caller, who may mutate it freely (BSON values such as an ObjectId stay what they are). */
export function copyOut<V>(value: V): V {
  const copy = plainCopy(value);
  return copy === notPlain ? normalize(value) : (copy as V);
}

const notPlain = Symbol("not plain data");

/**
 * A deep copy of `value` when it holds only what the journal's EJSON round trip gives back
 * unchanged (plain objects and arrays, strings, booleans, null, finite numbers other than -0,
 * valid Dates); `notPlain` otherwise (undefined, NaN, a BSON value...). Several times faster
 * than parsing EJSON or `structuredClone`; copies per read and per write showed in profiles of
 * admin writes.
 */
function plainCopy(value: unknown): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) && !Object.is(value, -0) ? value : notPlain;
    case "object":
      break;
    default:
      return notPlain;
  }
  if (value === null) return null;
  if (Array.isArray(value)) {
    const copy: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = plainCopy(value[i]);
      if (item === notPlain) return notPlain;
      copy[i] = item;
    }
    return copy;
  }
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? notPlain : new Date(value.getTime());
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return notPlain;
  const copy: Record<string, unknown> = {};
  const source = value as Record<string, unknown>;
  // Keys rather than entries: no pair array per key, on the path of every read and write.
  for (const key of Object.keys(source)) {
    // BSON reads an object with `_bsontype` as one of its own types.
    if (key === "_bsontype") return notPlain;
    checkKey(key);
    const itemCopy = plainCopy(source[key]);
    if (itemCopy === notPlain) return notPlain;
    setKey(copy, key, itemCopy);
  }
  return copy;
}

export function isDocumentId(value: unknown): value is DocumentId {
  return typeof value === "string" || typeof value === "number";
}

/**
 * The operators of the filters and projections the store honours (see collection.ts). mingo's
 * default `Query` copies all its operator tables (expressions, pipeline stages, accumulators...)
 * into every query it compiles; a query compiled with this context copies only these, a third
 * of the cost for the filters that change from call to call (`$in` of ids or names).
 */
const queryContext = Context.init({ query: queryOperators, projection: projectionOperators });

const newQuery = (filter: object) => new Query(filter as Record<string, unknown>, { context: queryContext });

/**
 * Compiled queries by their filter's JSON text. Compiling one copies every mingo operator table
 * (a cost per call that showed in profiles of admin writes), and most filters recur with the same
 * values (a project, an environment, a user). A compiled query keeps no state between tests.
 */
const compiled = new Map<string, Query>();
const maxCompiled = 1000;

/** Whether the filter is plain JSON, so its text says all it means (no Date, RegExp, undefined, NaN). */
function plainJson(value: unknown): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(plainJson);
  if (typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key in value) {
    if (!Object.hasOwn(value, key) || !plainJson((value as Record<string, unknown>)[key])) return false;
  }
  return true;
}

export function compileFilter<T>(filter: Filter<T>): Query {
  if (!plainJson(filter)) return newQuery(filter);
  const key = JSON.stringify(filter);
  let query = compiled.get(key);
  if (!query) {
    query = newQuery(filter);
    if (compiled.size >= maxCompiled) compiled.clear();
    compiled.set(key, query);
  }
  return query;
}

export function project(doc: Doc, projection: Projection | undefined): Doc {
  if (!projection || Object.keys(projection).length === 0) return doc;
  return newQuery({}).find<Doc>([doc], projection).all()[0];
}

/**
 * Applies a MongoDB update document to `doc` in place (mingo's update operators) and tells whether
 * anything changed. `$setOnInsert` is ignored here: it only matters to `buildUpsert`.
 */
export function applyUpdate<T>(doc: Doc, update: UpdateFilter<T>, filter: Filter<T>): boolean {
  const { $setOnInsert: _ignored, ...modifier } = update;
  if (Object.keys(modifier).length === 0) return false;
  const changed = applyModifier(doc, modifier as Modifier<Doc>, [], filter as Record<string, unknown>, {
    cloneMode: "deep",
  });
  return changed.length > 0;
}

/** The document an upsert inserts: the filter's equalities, then `$setOnInsert`, then the update. */
export function buildUpsert<T>(filter: Filter<T>, update: UpdateFilter<T>): Doc {
  const base = equalityFields(filter);
  const { $setOnInsert = {}, $set = {}, ...rest } = update as Record<string, Record<string, unknown>>;
  const sets: Record<string, unknown> = { ...base, ...$setOnInsert, ...$set };
  // mingo treats `_id` as immutable even on an empty document, so it is placed directly.
  const { _id = randomUUID(), ...otherSets } = sets;
  if (!isDocumentId(_id)) throw new TypeError("An upserted _id must be a string or a number");
  const doc = { _id } as Doc;
  const modifier = Object.keys(otherSets).length ? { ...rest, $set: otherSets } : rest;
  if (Object.keys(modifier).length) applyModifier(doc, modifier as Modifier<Doc>, [], {}, { cloneMode: "deep" });
  return doc;
}

/** The document a replacement produces, keeping `_id`. */
export function buildReplacement(id: DocumentId, replacement: Record<string, unknown>): Doc {
  if ("_id" in replacement && replacement._id !== id) {
    throw new TypeError(`A replacement cannot change _id (${String(id)} to ${String(replacement._id)})`);
  }
  return { ...replacement, _id: id };
}

export function sameDocument(a: Doc, b: Doc): boolean {
  return ejsonOf(a) === ejsonOf(b);
}
