import type { Collection, StoreEngine, StoreSession } from "@vexil/store";

export interface ServiceAccountDocument {
  /** From the users sequence: service accounts are users, so their ids never collide with people's. */
  _id: number;
  username: string;
  name: string | null;
  /** Root role id: 1 Admin, 2 Editor, 3 Viewer. */
  rootRole: number;
  createdAt: Date;
  seenAt: Date | null;
}

export interface ServiceAccountStore {
  nextId(): Promise<number>;
  list(): Promise<ServiceAccountDocument[]>;
  get(id: number, session?: StoreSession): Promise<ServiceAccountDocument | null>;
  insert(doc: ServiceAccountDocument, session: StoreSession): Promise<void>;
  update(id: number, fields: Partial<Pick<ServiceAccountDocument, "name" | "rootRole" | "seenAt">>, session?: StoreSession): Promise<void>;
  delete(id: number, session: StoreSession): Promise<void>;
}

export async function createServiceAccountStore(engine: StoreEngine): Promise<ServiceAccountStore> {
  const accounts: Collection<ServiceAccountDocument> = engine.collection("service_accounts");
  await accounts.createIndex({ username: 1 }, { unique: true });
  return {
    nextId: () => engine.nextSequence("users"),
    list: () => accounts.find({}, { sort: { _id: 1 } }),
    get: (id, session) => accounts.findOne({ _id: id }, { session }),
    async insert(doc, session) {
      await accounts.insertOne(doc, { session });
    },
    async update(id, fields, session) {
      await accounts.updateOne({ _id: id }, { $set: fields }, { session });
    },
    async delete(id, session) {
      await accounts.deleteOne({ _id: id }, { session });
    },
  };
}
