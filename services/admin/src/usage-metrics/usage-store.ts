import type { UsageReport } from "@vexil/contracts";
import type { Collection, StoreEngine } from "@vexil/store";

/** One flag's evaluations by one application in one environment and hour. */
export interface UsageDocument {
  _id: string;
  feature: string;
  appName: string;
  environment: string;
  hour: Date;
  yes: number;
  no: number;
  /** Variant name (escaped: `.` and `$` cannot start or sit in a field name) to count. */
  variants: Record<string, number>;
}

interface BatchDocument {
  _id: string;
  storedAt: Date;
}

const escapeName = (name: string) => name.replaceAll("%", "%25").replaceAll(".", "%2E").replaceAll("$", "%24");
const unescapeName = (name: string) => name.replaceAll("%2E", ".").replaceAll("%24", "$").replaceAll("%25", "%");

export interface UsageStore {
  /** Adds a report's counts unless its batch was stored before; false for a repeat. */
  add(report: UsageReport, now: Date): Promise<boolean>;
  /** The counts of a flag from `since` (an hour start) on, oldest first. */
  forFeature(feature: string, since: Date): Promise<UsageDocument[]>;
  /** Applications that reported the flag within the retention. */
  applicationsOf(feature: string): Promise<string[]>;
  /** Deletes hours before `before` and batch ids older than it; how many counts went. */
  prune(before: Date): Promise<number>;
}

export async function createUsageStore(engine: StoreEngine): Promise<UsageStore> {
  const usage: Collection<UsageDocument> = engine.collection("feature_usage");
  const batches: Collection<BatchDocument> = engine.collection("feature_usage_batches");
  await usage.createIndex({ feature: 1, hour: 1 });
  await usage.createIndex({ hour: 1 });
  await batches.createIndex({ storedAt: 1 });
  return {
    add: (report, now) =>
      engine.withTransaction(async (session) => {
        if (await batches.findOne({ _id: report.batchId }, { session })) return false;
        for (const count of report.counts) {
          const hour = new Date(count.hour);
          const increments: Record<string, number> = { yes: count.yes, no: count.no };
          for (const [name, n] of Object.entries(count.variants)) increments[`variants.${escapeName(name)}`] = n;
          await usage.updateOne(
            { _id: `${report.environment}\u0000${count.appName}\u0000${count.feature}\u0000${hour.toISOString()}` },
            {
              $inc: increments,
              $setOnInsert: { feature: count.feature, appName: count.appName, environment: report.environment, hour },
            } as never,
            { upsert: true, session },
          );
        }
        await batches.insertOne({ _id: report.batchId, storedAt: now }, { session });
        return true;
      }),
    async forFeature(feature, since) {
      const docs = await usage.find({ feature, hour: { $gte: since } }, { sort: { hour: 1, environment: 1, appName: 1 } });
      return docs.map((doc) => ({
        ...doc,
        variants: Object.fromEntries(Object.entries(doc.variants ?? {}).map(([name, n]) => [unescapeName(name), n])),
      }));
    },
    async applicationsOf(feature) {
      const docs = await usage.find<{ appName: string }>({ feature }, { projection: { appName: 1 } });
      return [...new Set(docs.map((doc) => doc.appName))].sort();
    },
    async prune(before) {
      await batches.deleteMany({ storedAt: { $lt: before } });
      return (await usage.deleteMany({ hour: { $lt: before } })).deletedCount;
    },
  };
}
