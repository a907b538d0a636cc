import express, { type Request, type Router } from "express";
import { authContract, logoutPath, type SignInOptions } from "@vexil/contracts";
import { AuthenticationRequired } from "@vexil/errors";
import { mountContract } from "@vexil/http";
import { defaultAdminPassword } from "../users/initial-admin.js";
import type { SignupTokenService } from "../signup-tokens/signup-token-service.js";
import { toUserView, type UserService } from "../users/user-service.js";
import { limitLoginAttempts, type LoginRateLimiter } from "./login-rate-limit.js";
import type { PasswordSignIn } from "./password-sign-in.js";
import type { SessionService } from "./session-service.js";
import { sendSsoPage } from "./sso-page.js";
import { clearSessionCookie, setSessionCookie } from "./session-cookie.js";
import type { SsoSession } from "./session-store.js";
import { readSessionCookie } from "./user-authenticators.js";

/** Sign-in, sign-out and invite signup: the paths people use before they hold a credential. */
export function authRoutes({
  sessions,
  users,
  signupTokens,
  loginLimiter,
  secureCookies,
  signOutAtProvider,
  signInOptions,
  passwordSignIn,
}: {
  sessions: SessionService;
  users: UserService;
  signupTokens: SignupTokenService;
  /** Per-client-address budget of sign-in attempts and per-account backoff after failures. */
  loginLimiter: LoginRateLimiter;
  /** Mark the cookie Secure (behind HTTPS). */
  secureCookies: boolean;
  /** Where to send the browser to end a single sign-on session at its identity provider too, if anywhere. */
  signOutAtProvider: (req: Request, sso: SsoSession) => Promise<string | undefined>;
  /** What the sign-in page offers. */
  signInOptions: () => Promise<SignInOptions>;
  /** Whether password sign-in is on, and the break-glass while it is off. */
  passwordSignIn: Pick<PasswordSignIn, "assertAllowed" | "recordBreakGlass">;
}): Router {
  const router = express.Router();

  // Before the contract's handler, so limited requests never reach the password check.
  router.post(authContract.login.path, limitLoginAttempts(loginLimiter));
  mountContract(router, authContract, {
    login: async ({ body, res }) => {
      await loginLimiter.assertAccountOpen(body.username);
      const allowed = await passwordSignIn.assertAllowed(body.username);
      const user = await users.verifyLogin(body.username, body.password).catch(async (err: unknown) => {
        if (err instanceof AuthenticationRequired) await loginLimiter.recordFailure(body.username);
        throw err;
      });
      await loginLimiter.recordSuccess(body.username);
      if (allowed === "break-glass") await passwordSignIn.recordBreakGlass(toUserView(user));
      const { sessionId, expiresAt } = await sessions.start(user._id);
      setSessionCookie(res, sessionId, expiresAt, secureCookies);
      return { status: 200, body: { ...toUserView(user), usesDefaultPassword: body.password === defaultAdminPassword } };
    },
    options: async () => ({ status: 200, body: await signInOptions() }),
    validateInvite: async ({ params }) => {
      await signupTokens.assertUsable(params.token);
      return { status: 200, body: undefined };
    },
    signup: async ({ params, body }) => {
      return { status: 201, body: await signupTokens.signup(params.token, body) };
    },
  });

  /**
   * Ends the session (if any) and sends the browser home, as Unleash does; a single sign-on
   * session is ended at the identity provider too when its settings allow (single logout).
   */
  const logout: express.RequestHandler = async (req, res, next) => {
    try {
      const sessionId = readSessionCookie(req.headers.cookie);
      const sso = sessionId ? await sessions.end(sessionId) : undefined;
      clearSessionCookie(res, secureCookies);
      const atProvider = sso && (await signOutAtProvider(req, sso));
      if (atProvider) {
        sendSsoPage(res, 200, { title: "Signing out", message: "Signed out of Vexil; now at your identity provider.", next: atProvider });
        return;
      }
      res.redirect(302, "/");
    } catch (err) {
      next(err);
    }
  };
  router.get(logoutPath, logout);
  router.post(logoutPath, logout);
  return router;
}
