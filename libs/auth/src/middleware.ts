import type { IncomingHttpHeaders } from "node:http";
import type { Request, RequestHandler } from "express";
import { AuthenticationRequired, NoAccessError } from "@vexil/errors";
import { getPrincipal, setPrincipal, type Principal } from "./principal.js";
import type { ApiTokenType } from "./token-secret.js";
import type { TokenSet } from "./token-set.js";

/** One way of recognising a caller; the first that recognises the request wins. */
export interface Authenticator {
  authenticate(req: Request): Promise<Principal | undefined> | Principal | undefined;
}

/** Unleash accepts the bare secret and `Bearer <secret>` alike. */
export function readAuthorization(req: { headers: IncomingHttpHeaders }): string | undefined {
  const header = req.headers.authorization?.trim();
  if (!header) return undefined;
  return header.replace(/^Bearer\s+/i, "");
}

export function apiTokenAuthenticator(tokens: TokenSet, now: () => Date = () => new Date()): Authenticator {
  return {
    authenticate(req) {
      const secret = readAuthorization(req);
      if (!secret) return undefined;
      const grant = tokens.lookup(secret);
      if (!grant) return undefined;
      if (grant.expiresAt && new Date(grant.expiresAt) <= now()) {
        throw new AuthenticationRequired("The API token has expired");
      }
      tokens.recordUse(grant);
      return { kind: "api-token", grant, secret };
    },
  };
}

/** Who the first authenticator that recognises the request says it is; a refusal (an expired token) throws. */
export async function recognise(authenticators: Authenticator[], req: Request): Promise<Principal | undefined> {
  for (const authenticator of authenticators) {
    const principal = await authenticator.authenticate(req);
    if (principal) return principal;
  }
  return undefined;
}

/** 401 unless one of the authenticators recognises the caller. */
export function authenticate(authenticators: Authenticator[]): RequestHandler {
  return async (req, _res, next) => {
    try {
      const principal = await recognise(authenticators, req);
      if (principal) {
        setPrincipal(req, principal);
        return next();
      }
      next(
        new AuthenticationRequired(
          req.headers.authorization
            ? "The provided API token is not valid"
            : "You must provide an API token in the Authorization header or sign in",
        ),
      );
    } catch (err) {
      next(err);
    }
  };
}

const permissionForType: Record<ApiTokenType, string> = {
  admin: "ADMIN",
  client: "CLIENT",
  frontend: "FRONTEND",
};

/** 403 when the caller is an API token of another type than this surface takes. */
export function requireTokenType(accepted: ApiTokenType[], { allowUsers = false } = {}): RequestHandler {
  return (req, _res, next) => {
    const principal = getPrincipal(req);
    if (!principal) return next(new AuthenticationRequired("You must provide an API token"));
    if (principal.kind === "user") {
      return next(allowUsers ? undefined : new NoAccessError(permissionForType[accepted[0]]));
    }
    if (!accepted.includes(principal.grant.type)) {
      return next(new NoAccessError(permissionForType[accepted[0]]));
    }
    next();
  };
}
