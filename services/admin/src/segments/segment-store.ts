import type { Collection, StoreEngine, StoreSession } from "@vexil/store";
import type { SegmentDocument } from "../features/feature-model.js";

export interface SegmentStore {
  list(): Promise<SegmentDocument[]>;
  get(id: number, session?: StoreSession): Promise<SegmentDocument | null>;
  getMany(ids: readonly number[], session?: StoreSession): Promise<SegmentDocument[]>;
  findByName(name: string, session?: StoreSession): Promise<SegmentDocument | null>;
  insert(doc: SegmentDocument, session: StoreSession): Promise<void>;
  replace(doc: SegmentDocument, session: StoreSession): Promise<void>;
  delete(id: number, session: StoreSession): Promise<boolean>;
}

export async function createSegmentStore(engine: StoreEngine): Promise<SegmentStore> {
  const segments: Collection<SegmentDocument> = engine.collection("segments");
  // Names are unique across all projects, as in Unleash.
  await segments.createIndex({ name: 1 }, { unique: true });
  return {
    list: () => segments.find({}, { sort: { _id: 1 } }),
    get: (id, session) => segments.findOne({ _id: id }, { session }),
    getMany: (ids, session) => segments.find({ _id: { $in: [...ids] } }, { sort: { _id: 1 }, session }),
    findByName: (name, session) => segments.findOne({ name }, { session }),
    async insert(doc, session) {
      await segments.insertOne(doc, { session });
    },
    async replace(doc, session) {
      await segments.replaceOne({ _id: doc._id }, doc, { session });
    },
    async delete(id, session) {
      return (await segments.deleteOne({ _id: id }, { session })).deletedCount === 1;
    },
  };
}
