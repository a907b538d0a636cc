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
  /** Read from the token's last-seen record (see `createApiTokenStore`), not written with the token. */
  seenAt: Date | null;
  alias: string | null;
  /** Personal access tokens act as this user. */
  userId?: number;
}

export interface ApiTokenStore {
  insert(token: ApiTokenDocument, session?: StoreSession): Promise<void>;
  /** Inserts a configured token unless one with its secret exists; true when it was added. */
  insertMissing(token: ApiTokenDocument): Promise<boolean>;
  /**
   * Inserts the admin token a start without tokens creates, unless a token exists by then; true
   * when it was added. It writes a guard document too, so two instances starting at once on an
   * empty database conflict on it and the one that runs again sees the other's token.
   */
  insertFirstAdminToken(token: ApiTokenDocument): Promise<boolean>;
  /** With a session, as the transaction sees it (a change reads the token it then writes). */
  get(secret: string, session?: StoreSession): Promise<ApiTokenDocument | null>;
  list(filter?: { tokenName?: string; type?: ApiTokenType }): Promise<ApiTokenDocument[]>;
  update(secret: string, fields: Partial<Pick<ApiTokenDocument, "expiresAt" | "tokenName">>, session?: StoreSession): Promise<boolean>;
  delete(secret: string, session?: StoreSession): Promise<boolean>;
  count(): Promise<number>;
  /** Records that the tokens with these digests were used at `at`; returns how many tokens that was. */
  markSeen(digests: string[], at: Date): Promise<number>;
}

/**
 * When a token was last used, by digest. Kept apart from the token so that recording a use (every
 * second under load) writes a small document without the secret: a whole token document rewritten
 * would copy its secret into the embedded store's journal on every use.
 */
interface TokenSeenDocument {
  _id: string;
  seenAt: Date;
}

export async function createApiTokenStore(engine: StoreEngine): Promise<ApiTokenStore> {
  const tokens: Collection<ApiTokenDocument> = engine.collection<ApiTokenDocument>("api_tokens");
  const seen: Collection<TokenSeenDocument> = engine.collection<TokenSeenDocument>("api_tokens_seen");
  const guards = engine.collection<{ _id: string; attempts: number }>("api_token_guards");
  await tokens.createIndex({ tokenName: 1 });
  await tokens.createIndex({ digest: 1 });

  /** The tokens with their last use (since store format 1, a token document's own `seenAt` is always null). */
  const withSeen = async (docs: ApiTokenDocument[], session?: StoreSession): Promise<ApiTokenDocument[]> => {
    if (docs.length === 0) return docs;
    const uses = await seen.find({ _id: { $in: docs.map((doc) => doc.digest) } }, { session });
    const byDigest = new Map(uses.map((use) => [use._id, use.seenAt]));
    return docs.map((doc) => ({ ...doc, seenAt: byDigest.get(doc.digest) ?? null }));
  };
  const stored = (token: ApiTokenDocument): ApiTokenDocument => ({ ...token, seenAt: null });

  return {
    async insert(token, session) {
      await tokens.insertOne(stored(token), { session });
    },
    async insertMissing(token) {
      const { _id, ...fields } = stored(token);
      const result = await tokens.updateOne({ _id }, { $setOnInsert: { ...fields } }, { upsert: true });
      return result.upsertedId !== null;
    },
    insertFirstAdminToken: (token) =>
      engine.withTransaction(async (session) => {
        await guards.updateOne({ _id: "first-admin-token" }, { $inc: { attempts: 1 } }, { upsert: true, session });
        if ((await tokens.countDocuments({}, { session })) > 0) return false;
        await tokens.insertOne(stored(token), { session });
        return true;
      }),
    get: async (secret, session) => {
      const doc = await tokens.findOne({ _id: secret }, { session });
      return doc ? (await withSeen([doc], session))[0]! : null;
    },
    list: async (filter = {}) => withSeen(await tokens.find(filter, { sort: { createdAt: 1 } })),
    async update(secret, fields, session) {
      const result = await tokens.updateOne({ _id: secret }, { $set: fields }, { session });
      return result.matchedCount === 1;
    },
    async delete(secret, session) {
      const doc = await tokens.findOne({ _id: secret }, { session, projection: { digest: 1 } });
      if (!doc) return false;
      await seen.deleteOne({ _id: doc.digest }, { session });
      return (await tokens.deleteOne({ _id: secret }, { session })).deletedCount === 1;
    },
    count: () => tokens.countDocuments({}),
    async markSeen(digests, at) {
      const known = await tokens.find<Pick<ApiTokenDocument, "digest">>(
        { digest: { $in: digests } },
        { projection: { _id: 0, digest: 1 } },
      );
      if (known.length === 0) return 0;
      // One transaction: one journal line on the embedded engine for the whole report.
      await engine.withTransaction(async (session) => {
        for (const { digest } of known) {
          await seen.updateOne({ _id: digest }, { $max: { seenAt: at } }, { upsert: true, session });
        }
      });
      return known.length;
    },
  };
}
