import type { Cache } from "@vexil/cache";
import { cacheKeys, type ClientFeature, type ClientSegment, type SnapshotIndex, type SnapshotNames } from "@vexil/contracts";

/**
 * Writes an environment's snapshot into the cache in the order the admin's publisher does: the
 * flags' entries (removing those of flags the previous names listed and these do not), the
 * segments, the names, then the index. `names` (the flags' names, sorted, unless given) and
 * `namesRevision` (the revision, unless given) let a test write names that do not go with the
 * entries or the index.
 */
export async function writeSnapshot(
  cache: Cache,
  environment: string,
  {
    revision,
    features,
    segments = [],
    names = features.map((f) => f.name).sort(),
    namesRevision = revision,
  }: { revision: number; features: ClientFeature[]; segments?: ClientSegment[]; names?: string[]; namesRevision?: number },
) {
  const before = (await cache.getJson<SnapshotNames>(cacheKeys.snapshotNames(environment)))?.featureNames ?? [];
  for (const name of before) if (!names.includes(name)) await cache.del(cacheKeys.snapshotFeature(environment, name));
  for (const f of features) await cache.set(cacheKeys.snapshotFeature(environment, f.name), JSON.stringify(f));
  await cache.setJson(cacheKeys.snapshotSegments(environment), segments);
  await cache.setJson(cacheKeys.snapshotNames(environment), { revision: namesRevision, featureNames: names } satisfies SnapshotNames);
  await cache.setJson(cacheKeys.snapshotIndex(environment), { environment, revision, namesRevision } satisfies SnapshotIndex);
}
