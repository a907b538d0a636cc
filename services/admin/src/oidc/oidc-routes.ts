import { parse as parseCookies } from "cookie";
import express, { type Request, type Response, type Router } from "express";
import { adminContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import { setSessionCookie } from "../auth/session-cookie.js";
import { sendSsoPage } from "../auth/sso-page.js";
import { localPath, ssoBaseUrl } from "../sso/base-url.js";
import { SsoRefusal } from "../sso/sso-sign-in.js";
import { withoutSecret, type OidcSettingsService } from "./oidc-settings.js";
import { oidcPaths, oidcRequestLifetimeMs, type OidcSignIn } from "./oidc-sign-in.js";

/** Holds the state of the sign-in this browser started, so only this browser can finish it. */
const stateCookie = "vexil-oidc-state";

/** Refusals of the person are 403, an unreachable provider 502; answers that fail the checks are 400. */
function statusOf(refusal: SsoRefusal): number {
  if (refusal.reason === "provider-unreachable") return 502;
  return ["no-email", "unknown-user", "domain-not-allowed", "email-not-verified"].includes(refusal.reason) ? 403 : 400;
}

/**
 * OpenID Connect sign-in's browser paths (docs/single-sign-on.md): start at
 * `GET /auth/oidc/login?redirect=`, the provider sends the browser back to `GET /auth/oidc/callback`.
 */
export function oidcRoutes({
  oidc,
  publicUrl,
  secureCookies,
}: {
  oidc: OidcSignIn;
  publicUrl: string | undefined;
  secureCookies: boolean;
}): Router {
  const router = express.Router();
  const base = (req: Request) => ssoBaseUrl(req, publicUrl);
  const cookieOptions = { httpOnly: true, sameSite: "lax", secure: secureCookies, path: oidcPaths.callback } as const;
  const refused = (res: Response, next: express.NextFunction, err: unknown) => {
    if (!(err instanceof SsoRefusal)) return next(err);
    sendSsoPage(res, statusOf(err), { title: "Sign-in refused", message: err.message });
  };

  router.get(oidcPaths.login, async (req, res, next) => {
    try {
      const { url, state } = await oidc.start(base(req), localPath(req.query.redirect));
      res.cookie(stateCookie, state, { ...cookieOptions, maxAge: oidcRequestLifetimeMs });
      res.redirect(302, url);
    } catch (err) {
      refused(res, next, err);
    }
  });
  router.get(oidcPaths.callback, async (req, res, next) => {
    try {
      const query = new URLSearchParams(req.originalUrl.includes("?") ? req.originalUrl.slice(req.originalUrl.indexOf("?") + 1) : "");
      const browserState = req.headers.cookie ? parseCookies(req.headers.cookie)[stateCookie] : undefined;
      res.clearCookie(stateCookie, cookieOptions);
      const { sessionId, expiresAt, redirect } = await oidc.finish(base(req), query, browserState);
      setSessionCookie(res, sessionId, expiresAt, secureCookies);
      res.redirect(302, localPath(redirect));
    } catch (err) {
      refused(res, next, err);
    }
  });
  return router;
}

export function oidcSettingsRoutes({ oidc, access }: { oidc: OidcSettingsService; access: AccessService }): Router {
  const router = express.Router();
  mountGuardedContract(
    router,
    adminContract.oidc,
    { access },
    {
      getSettings: async () => ({ status: 200, body: withoutSecret(await oidc.get()) }),
      updateSettings: async ({ body, actor }) => ({ status: 200, body: withoutSecret(await oidc.update(body, actor)) }),
    },
  );
  return router;
}
