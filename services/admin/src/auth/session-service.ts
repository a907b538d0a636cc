import { randomBytes } from "node:crypto";
import { tokenDigest, type SessionUser } from "@vexil/auth";
import type { UserService } from "../users/user-service.js";
import type { SessionStore, SsoSession } from "./session-store.js";

/** Unleash keeps sign-ins for 48 hours. */
export const sessionLifetimeMs = 48 * 60 * 60 * 1000;

export class SessionService {
  constructor(private readonly deps: { sessions: SessionStore; users: UserService; clock: () => Date; lifetimeMs?: number }) {}

  /** Starts a session for a verified user; the returned id goes in the cookie and nowhere else. */
  async start(userId: number, sso?: SsoSession): Promise<{ sessionId: string; expiresAt: Date }> {
    const sessionId = randomBytes(32).toString("base64url");
    const createdAt = this.deps.clock();
    const expiresAt = new Date(createdAt.getTime() + (this.deps.lifetimeMs ?? sessionLifetimeMs));
    await this.deps.sessions.insert({ _id: tokenDigest(sessionId), userId, createdAt, expiresAt, ...(sso ? { sso } : {}) });
    return { sessionId, expiresAt };
  }

  /** Ends the session; answers how it was opened when through single sign-on (to sign out there too). */
  async end(sessionId: string): Promise<SsoSession | undefined> {
    return (await this.deps.sessions.take(tokenDigest(sessionId)))?.sso;
  }

  /** The signed-in user of a live session; undefined for unknown, expired or orphaned sessions. */
  async userFor(sessionId: string): Promise<SessionUser | undefined> {
    const session = await this.deps.sessions.get(tokenDigest(sessionId));
    if (!session) return undefined;
    if (session.expiresAt <= this.deps.clock()) {
      await this.deps.sessions.delete(session._id);
      return undefined;
    }
    return this.deps.users.sessionUser(session.userId);
  }

  pruneExpired(): Promise<number> {
    return this.deps.sessions.deleteExpired(this.deps.clock());
  }
}
