import type { Collection, StoreEngine, StoreSession } from "@vexil/store";

/** A URL on a flag. Kept beside the flag, not in it: adding one is no change to what SDKs are served. */
export interface FlagLinkDocument {
  /** UUID. */
  _id: string;
  feature: string;
  url: string;
  title: string | null;
  createdAt: Date;
}

export interface FlagLinkStore {
  /** The links of many flags in one read, oldest first. */
  linksOf(features: readonly string[]): Promise<FlagLinkDocument[]>;
  get(id: string, session: StoreSession): Promise<FlagLinkDocument | null>;
  count(feature: string, session: StoreSession): Promise<number>;
  insert(doc: FlagLinkDocument, session: StoreSession): Promise<void>;
  replace(doc: FlagLinkDocument, session: StoreSession): Promise<void>;
  delete(id: string, session: StoreSession): Promise<void>;
  deleteOf(feature: string, session: StoreSession): Promise<void>;
}

export async function createFlagLinkStore(engine: StoreEngine): Promise<FlagLinkStore> {
  const links: Collection<FlagLinkDocument> = engine.collection("feature_links");
  await links.createIndex({ feature: 1 });
  return {
    linksOf: (features) => links.find({ feature: { $in: [...features] } }, { sort: { createdAt: 1, _id: 1 } }),
    get: (id, session) => links.findOne({ _id: id }, { session }),
    count: (feature, session) => links.countDocuments({ feature }, { session }),
    async insert(doc, session) {
      await links.insertOne(doc, { session });
    },
    async replace(doc, session) {
      await links.replaceOne({ _id: doc._id }, doc, { session });
    },
    async delete(id, session) {
      await links.deleteOne({ _id: id }, { session });
    },
    async deleteOf(feature, session) {
      await links.deleteMany({ feature }, { session });
    },
  };
}
