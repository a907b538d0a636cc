import type { Request, RequestHandler } from "express";
import { jsonType } from "@vexil/http";
import { ContentTypeerror, OperationDeniedError } from "@vexil/errors";
import { readSessionCookie } from "./user-authenticators.js";

const safeMethods = new Set(["GET", "HEAD", "OPTIONS"]);

/** The origin (`scheme://host[:port]`) of a URL, or undefined for anything that is not one. */
function originOf(url: string): string | undefined {
  try {
    const { origin } = new URL(url);
    return origin === "null" ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * The origin the browser used to reach this server: the Host it sent, or the X-Forwarded-Host and
 * -Proto a trusted proxy (the gateway, an ingress: `TRUST_PROXY`) set, as express reads them.
 */
export function requestOrigin(req: Request): string | undefined {
  const trust = req.app.get("trust proxy fn") as (address: string | undefined, hop: number) => boolean;
  const forwarded = req.get("x-forwarded-host");
  const host = forwarded && trust(req.socket.remoteAddress, 0) ? forwarded.split(",")[0]!.trim() : req.get("host");
  return host ? originOf(`${req.protocol}://${host}`) : undefined;
}

/**
 * Cross-site request forgery guard for the browser's session. A state-changing request that carries
 * the session cookie and no `Authorization` header must come from a page of this server — its
 * `Origin` (or, without one, its `Referer`) is the origin the request was sent to, or `publicUrl` —
 * and declare a JSON body, whatever its body: a form on another site (or on another port of the
 * same host, which SameSite=Lax lets through) can do neither, and a script of another origin cannot
 * send JSON without a preflight, which the admin API never grants. Requests with a token in
 * `Authorization` are not a browser's ambient credential and pass untouched.
 *
 * `exemptPaths` take cross-site posts on purpose and never act on the session: sign-out (GET
 * does the same) and endpoints an identity provider posts its answer to. Add such a path there,
 * never a path that changes anything on the caller's behalf.
 */
export function sameOriginWrites({ publicUrl, exemptPaths }: { publicUrl?: string; exemptPaths: readonly string[] }): RequestHandler {
  const publicOrigin = publicUrl ? originOf(publicUrl) : undefined;
  const exempt = new Set(exemptPaths);
  return (req, _res, next) => {
    if (safeMethods.has(req.method) || exempt.has(req.path)) return next();
    if (req.headers.authorization || !readSessionCookie(req.headers.cookie)) return next();
    const own = requestOrigin(req);
    const claimed = req.get("origin") ?? req.get("referer");
    const from = claimed === undefined ? undefined : (originOf(claimed) ?? "null");
    if (from === undefined || (from !== own && from !== publicOrigin)) {
      return next(
        new OperationDeniedError(
          from === undefined
            ? "A change made with the sign-in session must say where it comes from (Origin); scripts use an API token"
            : `A change made with the sign-in session must come from this server's own pages (${own ?? "unknown"}), not from ${from}`,
        ),
      );
    }
    const type = req.get("content-type") ?? "";
    if (!jsonType.test(type)) {
      return next(new ContentTypeerror(`Content-Type must be application/json, got '${type || "none"}'`));
    }
    next();
  };
}
