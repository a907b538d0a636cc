import type { Collection, StoreEngine, StoreSession } from "@vexil/store";

export interface SessionDocument {
  /** sha256 of the session id in the cookie: a stolen store cannot be replayed as cookies. */
  _id: string;
  userId: number;
  createdAt: Date;
  expiresAt: Date;
}

export interface SessionStore {
  insert(session: SessionDocument): Promise<void>;
  get(digest: string): Promise<SessionDocument | null>;
  delete(digest: string): Promise<void>;
  deleteForUser(userId: number, session?: StoreSession): Promise<void>;
  /** Every session of the user but one (the one that changed the password). */
  deleteForUserExcept(userId: number, keepDigest: string, session?: StoreSession): Promise<void>;
  deleteExpired(now: Date): Promise<number>;
}

export async function createSessionStore(engine: StoreEngine): Promise<SessionStore> {
  const sessions: Collection<SessionDocument> = engine.collection("sessions");
  await sessions.createIndex({ userId: 1 });
  await sessions.createIndex({ expiresAt: 1 });
  return {
    async insert(doc) {
      await sessions.insertOne(doc);
    },
    get: (digest) => sessions.findOne({ _id: digest }),
    async delete(digest) {
      await sessions.deleteOne({ _id: digest });
    },
    async deleteForUser(userId, session) {
      await sessions.deleteMany({ userId }, { session });
    },
    async deleteForUserExcept(userId, keepDigest, session) {
      await sessions.deleteMany({ userId, _id: { $ne: keepDigest } }, { session });
    },
    async deleteExpired(now) {
      return (await sessions.deleteMany({ expiresAt: { $lte: now } })).deletedCount;
    },
  };
}
