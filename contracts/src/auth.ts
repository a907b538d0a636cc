import { c, errorResponses, routerOptions } from "./common.js";
import { loginResponseSchema, loginSchema, signInOptionsSchema, signupSchema, userSchema } from "./schemas/index.js";

/** Ends the session and redirects to `/` (GET or POST): a browser navigation, not a JSON call. */
export const logoutPath = "/logout";

/**
 * The SAML assertion consumer: the identity provider's answer arrives here as an HTML form the
 * browser posts from the provider's site (urlencoded, cross-site). The one path that takes such a
 * body; it opens a session only from an answer whose signature checks out.
 */
export const samlCallbackPath = "/auth/saml/callback";
/** Paths whose POST body is an HTML form (`application/x-www-form-urlencoded`) rather than JSON. */
export const formPostPaths: readonly string[] = [samlCallbackPath];

/**
 * Sign-in and invite-link signup, outside `/api/admin` as in Unleash. Logout (`GET|POST /logout`)
 * redirects, so it is a plain route, not part of this contract.
 */
export const authContract = c.router(
  {
    login: {
      method: "POST",
      path: "/auth/simple/login",
      summary: "Sign in with a username (or email) and password; sets the `vexil-session` cookie",
      description:
        "Signs a user in with username or email and password, and sets the `vexil-session` cookie the admin UI and API accept. Too many attempts from one client address within a minute are refused with 429, as in Unleash. While password sign-in is turned off (`/api/admin/auth/simple/settings`), it is refused with 403, the break-glass for the built-in admin aside.",
      metadata: { requestExample: { username: "admin", password: "Correct-horse-9" } },
      body: loginSchema,
      responses: { 200: loginResponseSchema, ...errorResponses(400, 401, 403, 413, 415, 429) },
    },
    options: {
      method: "GET",
      path: "/auth/options",
      summary: "How people can sign in",
      description:
        "What the sign-in page offers: whether password sign-in is on, and each enabled single sign-on provider (SAML, OpenID Connect) with the path that starts it. Needs no credential.",
      responses: { 200: signInOptionsSchema },
    },
    validateInvite: {
      method: "GET",
      path: "/invite/:token/validate",
      summary: "Whether a public signup token can still be used",
      description: "Answers 200 while the signup link can be used (enabled and not expired), 400 otherwise.",
      responses: { 200: c.noBody(), ...errorResponses(400) },
    },
    signup: {
      method: "POST",
      path: "/invite/:token/signup",
      summary: "Create a user with the signup token's role",
      description:
        "Creates an account through a signup link, with the link's role; the new user then signs in with the password given here.",
      metadata: { requestExample: { name: "Bob Roe", email: "bob@example.com", password: "Correct-horse-9" } },
      body: signupSchema,
      responses: { 201: userSchema, ...errorResponses(400, 409, 413, 415) },
    },
  },
  routerOptions,
);
export type AuthContract = typeof authContract;
