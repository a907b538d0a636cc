import type { Collection, StoreEngine, StoreSession } from "@vexil/store";

/**
 * How a single sign-on session was opened, kept so signing out can end it at the identity
 * provider too: SAML's subject and session index, or OIDC's ID token (the logout hint).
 */
export type SsoSession =
  { provider: "saml"; nameID: string; nameIDFormat: string; sessionIndex?: string } | { provider: "oidc"; idToken: string };

export interface SessionDocument {
  /** sha256 of the session id in the cookie: a stolen store cannot be replayed as cookies. */
  _id: string;
  userId: number;
  createdAt: Date;
  expiresAt: Date;
  sso?: SsoSession;
}

export interface SessionStore {
  insert(session: SessionDocument): Promise<void>;
  get(digest: string): Promise<SessionDocument | null>;
  delete(digest: string): Promise<void>;
  /** Deletes the session and answers what it was, or null when there was none. */
  take(digest: string): Promise<SessionDocument | null>;
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
    async take(digest) {
      const doc = await sessions.findOne({ _id: digest });
      if (doc) await sessions.deleteOne({ _id: digest });
      return doc;
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
