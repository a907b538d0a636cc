import type { IncomingMessage, OutgoingHttpHeaders } from "node:http";
import type { Request, RequestHandler, Response } from "express";
import { readAuthorization, type ApiTokenType, type TokenGrant, type TokenSet } from "@vexil/auth";
import { clientFeaturesQuerySchema, clientSpecHeader, frontendContextQuerySchema } from "@vexil/contracts";
import type { FastRoute } from "@vexil/http";
import { featuresResponse, inlineSegmentsFor, matchesEtag, preferredCoding } from "./client/features-response.js";
import { frontendContext, frontendTogglesText, sendJsonText } from "./frontend/frontend-evaluation.js";
import { environmentFor, scopeFor, type FeatureScope } from "./snapshots/scope.js";
import type { SnapshotHolder } from "./snapshots/snapshot-holder.js";

/** Distinct `Authorization` values remembered; a client trying many cannot grow memory without bound. */
const maxRemembered = 1000;

/**
 * Grants by the raw `Authorization` header, so a request costs one map read instead of a SHA-256
 * of its secret; forgotten whenever the token set reloads (a token revoked, narrowed or added).
 */
class GrantsByHeader {
  private readonly known = new Map<string, { grant: TokenGrant; expiresAt: number; scope: FeatureScope }>();

  constructor(private readonly tokens: TokenSet) {
    tokens.onChange(() => this.known.clear());
  }

  /** The header's grant when it is of `type` and not expired; undefined leaves the request to the full checks. */
  lookup(header: string | undefined, type: ApiTokenType): { grant: TokenGrant; scope: FeatureScope } | undefined {
    if (!header) return undefined;
    let entry = this.known.get(header);
    if (!entry) {
      const secret = readAuthorization({ headers: { authorization: header } });
      const grant = secret ? this.tokens.lookup(secret) : undefined;
      if (!grant) return undefined;
      if (this.known.size >= maxRemembered) this.known.clear();
      entry = { grant, expiresAt: grant.expiresAt ? Date.parse(grant.expiresAt) : Infinity, scope: scopeFor(grant) };
      this.known.set(header, entry);
    }
    if (entry.grant.type !== type || entry.expiresAt <= Date.now()) return undefined;
    return entry;
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

/**
 * `GET /api/frontend` and `GET /api/client/features` answered before express (see `withFastRoutes`):
 * a token read from a map, a snapshot read and bytes written. Whatever is not the plain case — no
 * or an unknown token, another token type, a query or header the schemas refuse, no snapshot yet,
 * a body not yet compressed, the frontend API switched off — is left to the express routes, which
 * answer it (and its errors) as before.
 */
export function sdkFastRoutes({
  tokens,
  snapshots,
  frontendApiEnabled,
  crossOrigin,
}: {
  tokens: TokenSet;
  snapshots: SnapshotHolder;
  frontendApiEnabled: boolean;
  /** The frontend API's CORS headers (synchronous), as its express routes send them. */
  crossOrigin: RequestHandler;
}): FastRoute[] {
  const grants = new GrantsByHeader(tokens);
  const has = (environment: string) => snapshots.has(environment);
  const frontend: FastRoute = {
    path: "/api/frontend",
    answer(req, res, request) {
      if (!frontendApiEnabled) return false;
      const known = grants.lookup(req.headers.authorization, "frontend");
      if (!known) return false;
      const environment = environmentFor(known.grant, has);
      if (!snapshots.has(environment)) return false;
      const query = frontendContextQuerySchema.safeParse(request.query());
      if (!query.success) return false;
      tokens.recordUse(known.grant);
      crossOrigin(req as Request, res as Response, () => undefined);
      sendJsonText(res, frontendTogglesText(snapshots.get(environment), frontendContext(query.data, request.ip()), known.scope));
      return true;
    },
  };
  const clientFeatures: FastRoute = {
    path: "/api/client/features",
    answer(req, res, request) {
      const known = grants.lookup(req.headers.authorization, "client");
      if (!known) return false;
      const environment = environmentFor(known.grant, has);
      if (!snapshots.has(environment)) return false;
      let inline: boolean;
      try {
        inline = inlineSegmentsFor(header(req, clientSpecHeader));
      } catch {
        return false;
      }
      let scope = known.scope;
      if (request.search) {
        const query = clientFeaturesQuerySchema.safeParse(request.query());
        if (!query.success) return false;
        scope = scopeFor(known.grant, query.data);
      }
      const response = featuresResponse(snapshots.get(environment), scope, inline);
      if (matchesEtag(header(req, "if-none-match"), response.etag)) {
        tokens.recordUse(known.grant);
        res.writeHead(304, { etag: response.etag, vary: "Accept-Encoding" });
        res.end();
        return true;
      }
      const coding = preferredCoding(header(req, "accept-encoding"));
      const body = response.encodedNow(coding);
      // The first request for a coding waits for its compression, in the express route.
      if (!body) return false;
      tokens.recordUse(known.grant);
      const headers: OutgoingHttpHeaders = {
        etag: response.etag,
        vary: "Accept-Encoding",
        "content-type": "application/json; charset=utf-8",
      };
      if (coding !== "identity") headers["content-encoding"] = coding;
      res.writeHead(200, headers);
      res.end(body);
      return true;
    },
  };
  return [frontend, clientFeatures];
}
