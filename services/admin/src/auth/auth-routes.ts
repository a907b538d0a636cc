import express, { type Response, type Router } from "express";
import { authContract, logoutPath } from "@vexil/contracts";
import { AuthenticationRequired } from "@vexil/errors";
import { mountContract } from "@vexil/http";
import { defaultAdminPassword } from "../users/initial-admin.js";
import type { SignupTokenService } from "../signup-tokens/signup-token-service.js";
import { toUserView, type UserService } from "../users/user-service.js";
import { limitLoginAttempts, type LoginRateLimiter } from "./login-rate-limit.js";
import type { SessionService } from "./session-service.js";
import { readSessionCookie, sessionCookieName } from "./user-authenticators.js";

/** Sign-in, sign-out and invite signup: the paths people use before they hold a credential. */
export function authRoutes({
  sessions,
  users,
  signupTokens,
  loginLimiter,
  secureCookies,
}: {
  sessions: SessionService;
  users: UserService;
  signupTokens: SignupTokenService;
  /** Per-client-address budget of sign-in attempts and per-account backoff after failures. */
  loginLimiter: LoginRateLimiter;
  /** Mark the cookie Secure (behind HTTPS). */
  secureCookies: boolean;
}): Router {
  const router = express.Router();

  const setSessionCookie = (res: Response, sessionId: string, expiresAt: Date) =>
    res.cookie(sessionCookieName, sessionId, {
      httpOnly: true,
      sameSite: "lax",
      secure: secureCookies,
      path: "/",
      expires: expiresAt,
    });

  // Before the contract's handler, so limited requests never reach the password check.
  router.post(authContract.login.path, limitLoginAttempts(loginLimiter));
  mountContract(router, authContract, {
    login: async ({ body, res }) => {
      await loginLimiter.assertAccountOpen(body.username);
      const user = await users.verifyLogin(body.username, body.password).catch(async (err: unknown) => {
        if (err instanceof AuthenticationRequired) await loginLimiter.recordFailure(body.username);
        throw err;
      });
      await loginLimiter.recordSuccess(body.username);
      const { sessionId, expiresAt } = await sessions.start(user._id);
      setSessionCookie(res, sessionId, expiresAt);
      return { status: 200, body: { ...toUserView(user), usesDefaultPassword: body.password === defaultAdminPassword } };
    },
    validateInvite: async ({ params }) => {
      await signupTokens.assertUsable(params.token);
      return { status: 200, body: undefined };
    },
    signup: async ({ params, body }) => {
      return { status: 201, body: await signupTokens.signup(params.token, body) };
    },
  });

  /** Ends the session (if any) and sends the browser home, as Unleash does. */
  const logout: express.RequestHandler = async (req, res, next) => {
    try {
      const sessionId = readSessionCookie(req.headers.cookie);
      if (sessionId) await sessions.end(sessionId);
      res.clearCookie(sessionCookieName, { httpOnly: true, sameSite: "lax", secure: secureCookies, path: "/" });
      res.redirect(302, "/");
    } catch (err) {
      next(err);
    }
  };
  router.get(logoutPath, logout);
  router.post(logoutPath, logout);
  return router;
}
