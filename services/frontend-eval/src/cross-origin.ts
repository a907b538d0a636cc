import type { RequestHandler } from "express";
import cors from "cors";
import { z } from "zod";
import { envSchemas } from "@vexil/config";

/** An origin as browsers send it (`scheme://host[:port]`, nothing after), or `*`. */
function isOrigin(value: string): boolean {
  if (value === "*") return true;
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
}

/**
 * Unleash's setting, name and default: the origins whose pages may call the frontend API (and
 * here OFREP) from the browser, comma-separated; `*` (the default) allows every origin. Empty
 * allows none.
 */
export const frontendApiOriginsEnv = z.object({
  UNLEASH_FRONTEND_API_ORIGINS: envSchemas.commaList.default("*").superRefine((origins, ctx) => {
    for (const origin of origins.filter((o) => !isOrigin(o))) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: `Invalid origin: ${origin} (give scheme://host[:port], or *)` });
    }
  }),
});

/** How long a browser may keep a preflight's answer (Unleash's default). */
const preflightMaxAgeSeconds = 86_400;

/**
 * CORS for the browser SDKs' surfaces (`/api/frontend`, `/ofrep`): preflights are answered here,
 * before any token is asked for, and answers carry `Access-Control-Allow-Origin` for the allowed
 * origins (`*`, or the caller's origin when it is listed). No credentials: these surfaces take a
 * token in a header, never a cookie, and the admin API never answers cross-origin at all.
 * Synchronous, so the routes answered before express can run it too.
 */
export function allowBrowserOrigins(origins: readonly string[]): RequestHandler {
  return cors({
    origin: origins.includes("*") ? "*" : origins.length > 0 ? [...origins] : false,
    methods: ["GET", "POST"],
    exposedHeaders: ["ETag"],
    maxAge: preflightMaxAgeSeconds,
  });
}
