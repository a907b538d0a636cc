import type { Collection, StoreEngine, StoreSession } from "@vexil/store";

export interface PersonalAccessTokenDocument {
  _id: number;
  /** sha256 of the secret: the secret is shown once at creation and never stored. */
  digest: string;
  userId: number;
  description: string;
  expiresAt: Date;
  createdAt: Date;
  seenAt: Date | null;
}

export interface PersonalAccessTokenStore {
  nextId(): Promise<number>;
  insert(token: PersonalAccessTokenDocument, session?: StoreSession): Promise<void>;
  listForUser(userId: number): Promise<PersonalAccessTokenDocument[]>;
  getForUser(userId: number, id: number, session?: StoreSession): Promise<PersonalAccessTokenDocument | null>;
  findByDigest(digest: string): Promise<PersonalAccessTokenDocument | null>;
  markSeen(id: number, at: Date): Promise<void>;
  delete(id: number, session?: StoreSession): Promise<boolean>;
  deleteForUser(userId: number, session?: StoreSession): Promise<void>;
}

export async function createPersonalAccessTokenStore(engine: StoreEngine): Promise<PersonalAccessTokenStore> {
  const tokens: Collection<PersonalAccessTokenDocument> = engine.collection("personal_access_tokens");
  await tokens.createIndex({ digest: 1 }, { unique: true });
  await tokens.createIndex({ userId: 1 });
  return {
    nextId: () => engine.nextSequence("personal_access_tokens"),
    async insert(token, session) {
      await tokens.insertOne(token, { session });
    },
    listForUser: (userId) => tokens.find({ userId }, { sort: { _id: 1 } }),
    getForUser: (userId, id, session) => tokens.findOne({ _id: id, userId }, { session }),
    findByDigest: (digest) => tokens.findOne({ digest }),
    async markSeen(id, at) {
      await tokens.updateOne({ _id: id }, { $set: { seenAt: at } });
    },
    async delete(id, session) {
      return (await tokens.deleteOne({ _id: id }, { session })).deletedCount === 1;
    },
    async deleteForUser(userId, session) {
      await tokens.deleteMany({ userId }, { session });
    },
  };
}
