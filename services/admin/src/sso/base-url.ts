import type { Request } from "express";
import { requestOrigin } from "../auth/same-origin-writes.js";

/**
 * The address identity providers send people back to: `PUBLIC_URL` when set (behind a proxy that
 * rewrites the host), else the origin the browser used. Every SSO URL (the SAML entity id and
 * assertion consumer, the OIDC redirect) is built on it, so they agree with each other.
 */
export function ssoBaseUrl(req: Request, publicUrl: string | undefined): string {
  return (publicUrl ?? requestOrigin(req) ?? "").replace(/\/+$/, "");
}

/** A path on this server to go back to after signing in; anything else (another site, `//host`) is home. */
export function localPath(value: unknown): string {
  return typeof value === "string" && /^\/(?![/\\])/.test(value) ? value : "/";
}
