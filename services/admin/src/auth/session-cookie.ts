import type { Response } from "express";
import { sessionCookieName } from "./user-authenticators.js";

/** The sign-in cookie: script-proof, sent on top-level navigations from other sites (Lax), Secure behind HTTPS. */
export function setSessionCookie(res: Response, sessionId: string, expiresAt: Date, secure: boolean): void {
  res.cookie(sessionCookieName, sessionId, { httpOnly: true, sameSite: "lax", secure, path: "/", expires: expiresAt });
}

export function clearSessionCookie(res: Response, secure: boolean): void {
  res.clearCookie(sessionCookieName, { httpOnly: true, sameSite: "lax", secure, path: "/" });
}
