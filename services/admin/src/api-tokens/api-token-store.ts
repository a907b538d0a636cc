import type { ApiTokenType } from "@vexil/auth";
import type { Collection, StoreEngine, StoreSession } from "@vexil/store";

export interface ApiTokenDocument {
  /** The secret itself: Unleash shows secrets back to admins, so they are kept as given. */
  _id: string;
  /** sha256 of the secret: how other services name the token (`tokens.seen`) without the secret. */
  digest: string;
  tokenName: string;
  type: ApiTokenType;
  environment: string;
  projects: string[];
  expiresAt: Date | null;
  createdAt: Date;
  seenAt: Date | null;
  alias: string | null;
  /** Personal access tokens act as this user. */
  userId?: number;
}

export interface ApiTokenStore {
  insert(token: ApiTokenDocument, session?: StoreSession): Promise<void>;
  get(secret: string): Promise<ApiTokenDocument | null>;
  list(filter?: { tokenName?: string; type?: ApiTokenType }): Promise<ApiTokenDocument[]>;
  update(
    secret: string,
    fields: Partial<Pick<ApiTokenDocument, "expiresAt" | "seenAt" | "tokenName">>,
    session?: StoreSession,
  ): Promise<boolean>;
  delete(secret: string, session?: StoreSession): Promise<boolean>;
  count(): Promise<number>;
  markSeen(digests: string[], at: Date): Promise<number>;
}

export async function createApiTokenStore(engine: StoreEngine): Promise<ApiTokenStore> {
  const tokens: Collection<ApiTokenDocument> = engine.collection<ApiTokenDocument>("api_tokens");
  await tokens.createIndex({ tokenName: 1 });
  await tokens.createIndex({ digest: 1 });
  return {
    async insert(token, session) {
      await tokens.insertOne(token, { session });
    },
    get: (secret) => tokens.findOne({ _id: secret }),
    list: (filter = {}) => tokens.find(filter, { sort: { createdAt: 1 } }),
    async update(secret, fields, session) {
      const result = await tokens.updateOne({ _id: secret }, { $set: fields }, { session });
      return result.matchedCount === 1;
    },
    async delete(secret, session) {
      return (await tokens.deleteOne({ _id: secret }, { session })).deletedCount === 1;
    },
    count: () => tokens.countDocuments({}),
    async markSeen(digests, at) {
      return (await tokens.updateMany({ digest: { $in: digests } }, { $set: { seenAt: at } })).modifiedCount;
    },
  };
}
