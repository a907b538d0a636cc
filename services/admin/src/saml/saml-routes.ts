import { parse as parseCookies } from "cookie";
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import { samlCallbackPath } from "@vexil/contracts";
import { setSessionCookie } from "../auth/session-cookie.js";
import { localPath, ssoBaseUrl } from "../sso/base-url.js";
import { sendSsoPage } from "../auth/sso-page.js";
import { SsoRefusal } from "../sso/sso-sign-in.js";
import { samlPaths, samlRequestLifetimeMs, type SamlSignIn } from "./saml-sign-in.js";

/**
 * The cookie that ties a sign-in's answer to the browser that started it: the request id, sealed,
 * for the sign-in's paths only. The answer is a cross-site POST from the identity provider, which
 * browsers send a cookie with only when it is SameSite=None, and such a cookie must be Secure:
 * browsers keep it over HTTPS and on localhost, so single sign-on needs one of those.
 */
const bindingCookie = { name: "vexil-saml-request", path: "/auth/saml" } as const;

/** Refusals of the person (no account, domain not allowed) are 403; answers that fail the checks are 400. */
const refusedPeople = new Set(["no-email", "unknown-user", "domain-not-allowed"]);

/**
 * SAML sign-in's browser paths (docs/single-sign-on.md): start at `GET /auth/saml/login?redirect=`,
 * the provider posts back to `POST /auth/saml/callback`, the provider reads this server's
 * metadata at `GET /auth/saml/metadata`, and answers a sign-out at `GET /auth/saml/logout/callback`.
 */
export function samlRoutes({
  saml,
  publicUrl,
  secureCookies,
}: {
  saml: SamlSignIn;
  publicUrl: string | undefined;
  secureCookies: boolean;
}): Router {
  const router = express.Router();
  const base = (req: Request) => ssoBaseUrl(req, publicUrl);
  const answer = (res: Response, next: NextFunction) => (err: unknown) => {
    if (!(err instanceof SsoRefusal)) return next(err);
    sendSsoPage(res, refusedPeople.has(err.reason) ? 403 : 400, { title: "Sign-in refused", message: err.message });
  };

  router.get(samlPaths.login, async (req, res, next) => {
    try {
      const { url, binding } = await saml.loginUrl(base(req), localPath(req.query.redirect));
      res.cookie(bindingCookie.name, binding, {
        httpOnly: true,
        secure: true,
        sameSite: "none",
        path: bindingCookie.path,
        maxAge: samlRequestLifetimeMs,
      });
      res.redirect(302, url);
    } catch (err) {
      next(err);
    }
  });
  router.post(samlCallbackPath, async (req, res, next) => {
    // Used or refused, the binding is spent.
    res.clearCookie(bindingCookie.name, { httpOnly: true, secure: true, sameSite: "none", path: bindingCookie.path });
    try {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const binding = req.headers.cookie ? parseCookies(req.headers.cookie)[bindingCookie.name] : undefined;
      const { sessionId, expiresAt } = await saml.consume(base(req), body, binding);
      setSessionCookie(res, sessionId, expiresAt, secureCookies);
      // 303: the browser follows with a GET, not a second post of the answer.
      res.redirect(303, localPath(body.RelayState));
    } catch (err) {
      answer(res, next)(err);
    }
  });
  router.get(samlPaths.metadata, async (req, res, next) => {
    try {
      res.type("application/samlmetadata+xml").send(await saml.metadata(base(req)));
    } catch (err) {
      next(err);
    }
  });
  router.get(samlPaths.logoutCallback, async (req, res, next) => {
    try {
      const originalQuery = req.originalUrl.slice(req.originalUrl.indexOf("?") + 1);
      await saml.consumeLogoutResponse(base(req), req.query as Record<string, unknown>, originalQuery);
      res.redirect(302, "/login");
    } catch (err) {
      answer(res, next)(err);
    }
  });
  return router;
}
