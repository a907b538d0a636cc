import type { Cache } from "@vexil/cache";
import {
  snapshotCacheKey,
  snapshotFeatureKey,
  snapshotNamesKey,
  snapshotSegmentsKey,
  type ClientFeature,
  type ClientSegment,
  type SnapshotIndex,
  type SnapshotNames,
} from "@vexil/contracts";

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
  const before = (await cache.getJson<SnapshotNames>(snapshotNamesKey(environment)))?.featureNames ?? [];
  for (const name of before) if (!names.includes(name)) await cache.del(snapshotFeatureKey(environment, name));
  for (const f of features) await cache.set(snapshotFeatureKey(environment, f.name), JSON.stringify(f));
  await cache.setJson(snapshotSegmentsKey(environment), segments);
  await cache.setJson(snapshotNamesKey(environment), { revision: namesRevision, featureNames: names } satisfies SnapshotNames);
  await cache.setJson(snapshotCacheKey(environment), { environment, revision, namesRevision } satisfies SnapshotIndex);
}
