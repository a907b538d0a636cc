import { parse as parseCookies } from "cookie";
import { readAuthorization, type Authenticator, type SessionUser } from "@vexil/auth";
import type { PersonalAccessTokenService } from "../users/personal-access-token-service.js";
import type { SessionService } from "./session-service.js";

export const sessionCookieName = "vexil-session";

export function readSessionCookie(cookieHeader: string | undefined): string | undefined {
  return cookieHeader ? parseCookies(cookieHeader)[sessionCookieName] : undefined;
}

/** A browser signed in (password or single sign-on), with the roles its groups add. */
export function sessionAuthenticator(sessions: SessionService, withGroups: (user: SessionUser) => Promise<SessionUser>): Authenticator {
  return {
    async authenticate(req) {
      const sessionId = readSessionCookie(req.headers.cookie);
      if (!sessionId) return undefined;
      const user = await sessions.userFor(sessionId);
      return user ? { kind: "user", user: await withGroups(user), via: "session", sessionId } : undefined;
    },
  };
}

/** Who the account a token belongs to acts as (a person or a service account); undefined once it is gone. */
export type TokenOwner = (accountId: number) => Promise<SessionUser | undefined>;

/** A script with a personal or service account token, acting as (and with the role of) its account. */
export function personalAccessTokenAuthenticator(tokens: PersonalAccessTokenService, ownerOf: TokenOwner): Authenticator {
  return {
    async authenticate(req) {
      const secret = readAuthorization(req);
      if (!secret) return undefined;
      const userId = await tokens.userIdFor(secret);
      if (userId === undefined) return undefined;
      const user = await ownerOf(userId);
      return user ? { kind: "user", user, via: "personal-access-token" } : undefined;
    },
  };
}
