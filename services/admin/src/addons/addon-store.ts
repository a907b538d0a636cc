import type { Collection, StoreEngine, StoreSession } from "@vexil/store";

/** An addon configuration as stored: parameters in clear, masked only on the way out. */
export interface AddonDocument {
  _id: number;
  provider: string;
  description: string | null;
  enabled: boolean;
  parameters: Record<string, string>;
  events: string[];
  projects: string[];
  environments: string[];
  createdAt: Date;
}

export interface AddonStore {
  nextId(): Promise<number>;
  list(): Promise<AddonDocument[]>;
  get(id: number, session?: StoreSession): Promise<AddonDocument | null>;
  insert(doc: AddonDocument, session: StoreSession): Promise<void>;
  replace(doc: AddonDocument, session: StoreSession): Promise<void>;
  delete(id: number, session: StoreSession): Promise<boolean>;
}

export function createAddonStore(engine: StoreEngine): AddonStore {
  const addons: Collection<AddonDocument> = engine.collection("addons");
  return {
    nextId: () => engine.nextSequence("addons"),
    list: () => addons.find({}, { sort: { _id: 1 } }),
    get: (id, session) => addons.findOne({ _id: id }, { session }),
    async insert(doc, session) {
      await addons.insertOne(doc, { session });
    },
    async replace(doc, session) {
      await addons.replaceOne({ _id: doc._id }, doc, { session });
    },
    async delete(id, session) {
      return (await addons.deleteOne({ _id: id }, { session })).deletedCount === 1;
    },
  };
}
