import type { Collection, StoreEngine, StoreSession } from "@vexil/store";

export interface SignalEndpointDocument {
  _id: number;
  name: string;
  description: string | null;
  enabled: boolean;
  createdAt: Date;
  createdByUserId: number;
}

export interface SignalEndpointTokenDocument {
  _id: number;
  endpointId: number;
  name: string;
  /** sha256 of the secret; the secret itself is shown once and never stored. */
  digest: string;
  createdAt: Date;
  createdByUserId: number;
}

export interface SignalEndpointStore {
  nextId(): Promise<number>;
  nextTokenId(): Promise<number>;
  list(): Promise<SignalEndpointDocument[]>;
  get(id: number, session?: StoreSession): Promise<SignalEndpointDocument | null>;
  count(session?: StoreSession): Promise<number>;
  insert(doc: SignalEndpointDocument, session: StoreSession): Promise<void>;
  update(id: number, fields: Partial<Omit<SignalEndpointDocument, "_id">>, session: StoreSession): Promise<void>;
  delete(id: number, session: StoreSession): Promise<void>;
  tokens(endpointId?: number, session?: StoreSession): Promise<SignalEndpointTokenDocument[]>;
  getToken(endpointId: number, id: number, session?: StoreSession): Promise<SignalEndpointTokenDocument | null>;
  countTokens(endpointId: number, session?: StoreSession): Promise<number>;
  insertToken(doc: SignalEndpointTokenDocument, session: StoreSession): Promise<void>;
  renameToken(id: number, name: string, session: StoreSession): Promise<void>;
  deleteToken(id: number, session: StoreSession): Promise<void>;
}

export async function createSignalEndpointStore(engine: StoreEngine): Promise<SignalEndpointStore> {
  const endpoints: Collection<SignalEndpointDocument> = engine.collection("signal_endpoints");
  const tokens: Collection<SignalEndpointTokenDocument> = engine.collection("signal_endpoint_tokens");
  await endpoints.createIndex({ name: 1 }, { unique: true });
  await tokens.createIndex({ endpointId: 1, _id: 1 });
  await tokens.createIndex({ digest: 1 }, { unique: true });
  return {
    nextId: () => engine.nextSequence("signal_endpoints"),
    nextTokenId: () => engine.nextSequence("signal_endpoint_tokens"),
    list: () => endpoints.find({}, { sort: { _id: 1 } }),
    get: (id, session) => endpoints.findOne({ _id: id }, { session }),
    count: (session) => endpoints.countDocuments({}, { session }),
    async insert(doc, session) {
      await endpoints.insertOne(doc, { session });
    },
    async update(id, fields, session) {
      await endpoints.updateOne({ _id: id }, { $set: fields }, { session });
    },
    async delete(id, session) {
      await tokens.deleteMany({ endpointId: id }, { session });
      await endpoints.deleteOne({ _id: id }, { session });
    },
    tokens: (endpointId, session) => tokens.find(endpointId === undefined ? {} : { endpointId }, { sort: { _id: 1 }, session }),
    getToken: (endpointId, id, session) => tokens.findOne({ _id: id, endpointId }, { session }),
    countTokens: (endpointId, session) => tokens.countDocuments({ endpointId }, { session }),
    async insertToken(doc, session) {
      await tokens.insertOne(doc, { session });
    },
    async renameToken(id, name, session) {
      await tokens.updateOne({ _id: id }, { $set: { name } }, { session });
    },
    async deleteToken(id, session) {
      await tokens.deleteOne({ _id: id }, { session });
    },
  };
}
