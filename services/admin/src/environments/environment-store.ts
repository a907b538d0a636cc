import type { Collection, StoreEngine, StoreSession } from "@vexil/store";

export interface EnvironmentDocument {
  /** The environment name. */
  _id: string;
  type: string;
  enabled: boolean;
  sortOrder: number;
  protected: boolean;
  createdAt: Date;
}

export interface EnvironmentStore {
  list(): Promise<EnvironmentDocument[]>;
  get(name: string): Promise<EnvironmentDocument | null>;
  insert(doc: EnvironmentDocument, session?: StoreSession): Promise<void>;
  update(name: string, fields: Partial<Omit<EnvironmentDocument, "_id">>, session?: StoreSession): Promise<boolean>;
  delete(name: string, session?: StoreSession): Promise<boolean>;
  count(): Promise<number>;
}

export function createEnvironmentStore(engine: StoreEngine): EnvironmentStore {
  const environments: Collection<EnvironmentDocument> = engine.collection("environments");
  return {
    list: () => environments.find({}, { sort: { sortOrder: 1, _id: 1 } }),
    get: (name) => environments.findOne({ _id: name }),
    async insert(doc, session) {
      await environments.insertOne(doc, { session });
    },
    async update(name, fields, session) {
      return (await environments.updateOne({ _id: name }, { $set: fields }, { session })).matchedCount === 1;
    },
    async delete(name, session) {
      return (await environments.deleteOne({ _id: name }, { session })).deletedCount === 1;
    },
    count: () => environments.countDocuments({}),
  };
}
