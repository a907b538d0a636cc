import type { Collection as MongoCollection, Document } from "mongodb";
import type { IndexKeys, IndexOptions } from "../collection.js";
import type { IndexCollision } from "../errors.js";

/** An index as `listIndexes` describes it. */
export interface ListedIndex {
  name: string;
  key: IndexKeys;
  unique?: boolean;
  partialFilterExpression?: Record<string, unknown>;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Whether the index has these keys (in this order) and this partial filter: what MongoDB counts as the same index. */
export function sameKeys(index: ListedIndex, keys: IndexKeys, partialFilterExpression: Record<string, unknown> | undefined): boolean {
  return sameJson(index.key, keys) && sameJson(index.partialFilterExpression, partialFilterExpression);
}

/** Whether the index is exactly the one these keys and options describe. */
export function sameIndex(index: ListedIndex, keys: IndexKeys, options: IndexOptions): boolean {
  return sameKeys(index, keys, options.partialFilterExpression) && Boolean(index.unique) === Boolean(options.unique);
}

/**
 * Keys that several documents already hold on a unique index about to be built, with their `_id`s
 * (up to `limit`): the documents in the partial filter, one row per element of an array field (a
 * multikey index's keys), a missing field as null, grouped by key. It reads the whole collection
 * once, which only a new unique index costs.
 */
export async function findCollisions(
  collection: Pick<MongoCollection<Document>, "aggregate">,
  keys: IndexKeys,
  partialFilterExpression: Record<string, unknown> | undefined,
  limit: number,
): Promise<IndexCollision[]> {
  const fields = Object.keys(keys);
  // Field names with `.` cannot be group keys: each path is grouped under its position.
  const groupKey = Object.fromEntries(fields.map((path, i) => [`k${i}`, { $ifNull: [`$${path}`, null] }]));
  const rows = await collection
    .aggregate<{ _id: Record<string, unknown>; ids: unknown[] }>(
      [
        ...(partialFilterExpression ? [{ $match: partialFilterExpression }] : []),
        ...fields.map((path) => ({ $unwind: { path: `$${path}`, preserveNullAndEmptyArrays: true } })),
        { $group: { _id: groupKey, ids: { $addToSet: "$_id" } } },
        // A document repeating a value in its own array is no collision: ids are distinct documents.
        { $match: { "ids.1": { $exists: true } } },
        { $limit: limit },
      ],
      { allowDiskUse: true },
    )
    .toArray();
  return rows.map((row) => ({
    keyValue: Object.fromEntries(fields.map((path, i) => [path, row._id[`k${i}`] ?? null])),
    ids: row.ids,
  }));
}
