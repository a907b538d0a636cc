import type { Collection, StoreEngine, StoreSession } from "@vexil/store";

type SdkType = "backend" | "frontend";

/** A client application (Unleash's `client_applications`), keyed by its name. */
export interface ClientApplicationDocument {
  _id: string;
  description: string | null;
  url: string | null;
  color: string | null;
  icon: string | null;
  /** The strategies its SDKs announced last; absent until one registers. */
  strategies?: string[];
  /** Each project and environment its SDKs' tokens read. */
  usage?: { project: string; environment: string }[];
  /** Flags its SDKs reported using. */
  seenToggles?: string[];
  createdAt: Date;
  updatedAt: Date;
  createdBy: string | null;
  /** Its `application-created` event was recorded. */
  announced: boolean;
}

/** One running SDK of an application (Unleash's `client_instances`). */
export interface ClientInstanceDocument {
  _id: string;
  appName: string;
  instanceId: string;
  sdkVersion: string | null;
  sdkType: SdkType | null;
  environment: string;
  clientIp: string | null;
  lastSeen: Date;
  createdAt: Date;
  started?: Date;
  interval?: number;
  connectVia?: { appName: string; instanceId: string }[];
}

/** What a registration or a metrics post says about an application. */
export interface ApplicationSighting {
  appName: string;
  strategies?: string[];
  usage: { project: string; environment: string }[];
  seenToggles?: string[];
  at: Date;
  createdBy: string;
}

/** What an SDK told about itself; details a metrics post lacks are left as they were. */
export interface InstanceSighting {
  appName: string;
  instanceId: string;
  sdkType: SdkType;
  environment: string;
  lastSeen: Date;
  sdkVersion?: string;
  clientIp?: string;
  started?: Date;
  interval?: number;
  connectVia?: { appName: string; instanceId: string }[];
}

export type ApplicationDetailsUpdate = Partial<Pick<ClientApplicationDocument, "description" | "url" | "color" | "icon">>;

export interface ClientApplicationStore {
  /** Creates the application or adds what was seen; true when it was created. */
  upsertSeen(sighting: ApplicationSighting, session?: StoreSession): Promise<boolean>;
  /** Creates the application or sets the given details; true when it was created. */
  upsertDetails(appName: string, details: ApplicationDetailsUpdate, at: Date, createdBy: string, session?: StoreSession): Promise<boolean>;
  upsertInstance(sighting: InstanceSighting, session?: StoreSession): Promise<void>;
  get(appName: string, session?: StoreSession): Promise<ClientApplicationDocument | null>;
  list(query: {
    nameContains?: string;
    offset: number;
    limit: number;
  }): Promise<{ applications: ClientApplicationDocument[]; total: number }>;
  instancesOf(appName: string): Promise<ClientInstanceDocument[]>;
  /** Removes the application and its instances; false when there was no such application. */
  delete(appName: string, session?: StoreSession): Promise<boolean>;
  /** Deletes the instances last seen before `before` (their application stays); how many went. */
  pruneInstances(before: Date): Promise<number>;
}

const instanceKey = (appName: string, instanceId: string) => JSON.stringify([appName, instanceId]);
const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export async function createClientApplicationStore(engine: StoreEngine): Promise<ClientApplicationStore> {
  const applications: Collection<ClientApplicationDocument> = engine.collection("client_applications");
  const instances: Collection<ClientInstanceDocument> = engine.collection("client_instances");
  await instances.createIndex({ appName: 1, lastSeen: -1 });
  // Retention: the sweep reads only the instances not seen since its cutoff, on either engine.
  await instances.createIndex({ lastSeen: 1 });

  /** The fields a new application starts with, minus those the update itself sets. */
  function fresh(at: Date, createdBy: string, setByUpdate: readonly string[]) {
    const initial = { description: null, url: null, color: null, icon: null, createdAt: at, createdBy, announced: true };
    return Object.fromEntries(Object.entries(initial).filter(([key]) => !setByUpdate.includes(key)));
  }

  return {
    async upsertSeen({ appName, strategies, usage, seenToggles, at, createdBy }, session) {
      const result = await applications.updateOne(
        { _id: appName },
        {
          $set: { updatedAt: at, ...(strategies ? { strategies } : {}) },
          $setOnInsert: fresh(at, createdBy, []),
          $addToSet: { usage: { $each: usage }, ...(seenToggles?.length ? { seenToggles: { $each: seenToggles } } : {}) },
        },
        { upsert: true, session },
      );
      return result.upsertedId !== null;
    },
    async upsertDetails(appName, details, at, createdBy, session) {
      const set = { ...withoutUndefined(details), updatedAt: at };
      const result = await applications.updateOne(
        { _id: appName },
        { $set: set, $setOnInsert: fresh(at, createdBy, Object.keys(set)) },
        { upsert: true, session },
      );
      return result.upsertedId !== null;
    },
    async upsertInstance(sighting, session) {
      const { appName, instanceId, lastSeen, ...details } = sighting;
      const known = withoutUndefined(details);
      const unknownOnInsert = Object.fromEntries(
        (["sdkVersion", "clientIp"] as const).filter((key) => known[key] === undefined).map((key) => [key, null]),
      );
      await instances.updateOne(
        { _id: instanceKey(appName, instanceId) },
        { $set: { ...known, lastSeen }, $setOnInsert: { appName, instanceId, createdAt: lastSeen, ...unknownOnInsert } },
        { upsert: true, session },
      );
    },
    get: (appName, session) => applications.findOne({ _id: appName }, { session }),
    async list({ nameContains, offset, limit }) {
      const filter = nameContains ? { _id: { $regex: escapeRegex(nameContains), $options: "i" } } : {};
      const [found, total] = await Promise.all([
        applications.find(filter, { sort: { _id: 1 }, skip: offset, limit }),
        applications.countDocuments(filter),
      ]);
      return { applications: found, total };
    },
    instancesOf: (appName) => instances.find({ appName }, { sort: { lastSeen: -1, instanceId: 1 } }),
    async delete(appName, session) {
      await instances.deleteMany({ appName }, { session });
      return (await applications.deleteOne({ _id: appName }, { session })).deletedCount === 1;
    },
    async pruneInstances(before) {
      return (await instances.deleteMany({ lastSeen: { $lt: before } })).deletedCount;
    },
  };
}
