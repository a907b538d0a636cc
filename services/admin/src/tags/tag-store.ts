import type { Collection, StoreEngine, StoreSession } from "@vexil/store";

export interface TagTypeDocument {
  /** The type name. */
  _id: string;
  description: string | null;
  icon: string | null;
  color: string | null;
  createdAt: Date;
}

export interface TagDocument {
  /** `<type>:<value>`: type names are URL-friendly, so the first colon separates them. */
  _id: string;
  type: string;
  value: string;
  createdAt: Date;
}

export interface FeatureTagDocument {
  /** `<feature>:<type>:<value>` */
  _id: string;
  feature: string;
  type: string;
  value: string;
  createdAt: Date;
  createdByUserId: number;
}

export const tagId = (type: string, value: string) => `${type}:${value}`;
export const featureTagId = (feature: string, type: string, value: string) => `${feature}:${type}:${value}`;

export interface TagStore {
  listTypes(): Promise<TagTypeDocument[]>;
  getType(name: string, session?: StoreSession): Promise<TagTypeDocument | null>;
  countTypes(): Promise<number>;
  insertType(doc: TagTypeDocument, session?: StoreSession): Promise<void>;
  replaceType(doc: TagTypeDocument, session: StoreSession): Promise<void>;
  /** Deletes the type with its tags and their uses on features. */
  deleteType(name: string, session: StoreSession): Promise<boolean>;

  listTags(type?: string): Promise<TagDocument[]>;
  getTag(type: string, value: string, session?: StoreSession): Promise<TagDocument | null>;
  insertTag(doc: TagDocument, session: StoreSession): Promise<void>;
  /** Deletes the tag and its uses on features. */
  deleteTag(type: string, value: string, session: StoreSession): Promise<boolean>;

  featureTags(feature: string, session?: StoreSession): Promise<FeatureTagDocument[]>;
  /** The tags of many flags in one read, ordered as `featureTags` orders one flag's. */
  featureTagsOf(features: readonly string[]): Promise<FeatureTagDocument[]>;
  /** Uses of any of these tags, on any flag. */
  usesOf(tags: ReadonlyArray<{ type: string; value: string }>): Promise<FeatureTagDocument[]>;
  addFeatureTag(doc: FeatureTagDocument, session: StoreSession): Promise<boolean>;
  removeFeatureTag(feature: string, type: string, value: string, session: StoreSession): Promise<boolean>;
  removeFeatureTags(feature: string, session: StoreSession): Promise<number>;
}

export async function createTagStore(engine: StoreEngine): Promise<TagStore> {
  const types: Collection<TagTypeDocument> = engine.collection("tag_types");
  const tags: Collection<TagDocument> = engine.collection("tags");
  const featureTags: Collection<FeatureTagDocument> = engine.collection("feature_tags");
  await tags.createIndex({ type: 1 });
  await featureTags.createIndex({ feature: 1 });
  await featureTags.createIndex({ type: 1, value: 1 });
  return {
    listTypes: () => types.find({}, { sort: { createdAt: 1, _id: 1 } }),
    getType: (name, session) => types.findOne({ _id: name }, { session }),
    countTypes: () => types.countDocuments({}),
    async insertType(doc, session) {
      await types.insertOne(doc, { session });
    },
    async replaceType(doc, session) {
      await types.replaceOne({ _id: doc._id }, doc, { session });
    },
    async deleteType(name, session) {
      await featureTags.deleteMany({ type: name }, { session });
      await tags.deleteMany({ type: name }, { session });
      return (await types.deleteOne({ _id: name }, { session })).deletedCount === 1;
    },
    listTags: (type) => tags.find(type === undefined ? {} : { type }, { sort: { type: 1, value: 1 } }),
    getTag: (type, value, session) => tags.findOne({ _id: tagId(type, value) }, { session }),
    async insertTag(doc, session) {
      await tags.insertOne(doc, { session });
    },
    async deleteTag(type, value, session) {
      await featureTags.deleteMany({ type, value }, { session });
      return (await tags.deleteOne({ _id: tagId(type, value) }, { session })).deletedCount === 1;
    },
    featureTags: (feature, session) => featureTags.find({ feature }, { sort: { type: 1, value: 1 }, session }),
    featureTagsOf: (names) => featureTags.find({ feature: { $in: [...names] } }, { sort: { type: 1, value: 1 } }),
    usesOf: (wanted) => featureTags.find({ $or: wanted.map(({ type, value }) => ({ type, value })) }),
    async addFeatureTag(doc, session) {
      if (await featureTags.findOne({ _id: doc._id }, { session })) return false;
      await featureTags.insertOne(doc, { session });
      return true;
    },
    async removeFeatureTag(feature, type, value, session) {
      return (await featureTags.deleteOne({ _id: featureTagId(feature, type, value) }, { session })).deletedCount === 1;
    },
    async removeFeatureTags(feature, session) {
      return (await featureTags.deleteMany({ feature }, { session })).deletedCount;
    },
  };
}
