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
  list(session?: StoreSession): Promise<EnvironmentDocument[]>;
  get(name: string, session?: StoreSession): Promise<EnvironmentDocument | null>;
  insert(doc: EnvironmentDocument, session?: StoreSession): Promise<void>;
  update(name: string, fields: Partial<Omit<EnvironmentDocument, "_id">>, session?: StoreSession): Promise<boolean>;
  delete(name: string, session?: StoreSession): Promise<boolean>;
  count(): Promise<number>;
}

export function createEnvironmentStore(engine: StoreEngine): EnvironmentStore {
  const environments: Collection<EnvironmentDocument> = engine.collection("environments");
  return {
    list: (session) => environments.find({}, { sort: { sortOrder: 1, _id: 1 }, session }),
    get: (name, session) => environments.findOne({ _id: name }, { session }),
    async insert(doc, session) {
      await environments.insertOne(doc, { session });
    },
    async update(name, fields, session) {
      const { _id, ...rest } = fields as Partial<EnvironmentDocument>;
      return (await environments.updateOne({ _id: name }, { $set: rest }, { session })).matchedCount === 1;
    },
    async delete(name, session) {
      return (await environments.deleteOne({ _id: name }, { session })).deletedCount === 1;
    },
    count: () => environments.countDocuments({}),
  };
}
