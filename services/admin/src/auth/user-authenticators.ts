import { parse as parseCookies } from "cookie";
import { readAuthorization, type Authenticator } from "@vexil/auth";
import type { PersonalAccessTokenService } from "../users/personal-access-token-service.js";
import type { UserService } from "../users/user-service.js";
import type { SessionService } from "./session-service.js";

export const sessionCookieName = "vexil-session";

export function readSessionCookie(cookieHeader: string | undefined): string | undefined {
  return cookieHeader ? parseCookies(cookieHeader)[sessionCookieName] : undefined;
}

/** A browser signed in with `POST /auth/simple/login`. */
export function sessionAuthenticator(sessions: SessionService): Authenticator {
  return {
    async authenticate(req) {
      const sessionId = readSessionCookie(req.headers.cookie);
      if (!sessionId) return undefined;
      const user = await sessions.userFor(sessionId);
      return user ? { kind: "user", user, via: "session", sessionId } : undefined;
    },
  };
}

/** A script with a personal access token, acting as (and with the role of) its user. */
export function personalAccessTokenAuthenticator(tokens: PersonalAccessTokenService, users: UserService): Authenticator {
  return {
    async authenticate(req) {
      const secret = readAuthorization(req);
      if (!secret) return undefined;
      const userId = await tokens.userIdFor(secret);
      if (userId === undefined) return undefined;
      const user = await users.sessionUser(userId);
      return user ? { kind: "user", user, via: "personal-access-token" } : undefined;
    },
  };
}
