import type { RequestHandler } from "express";
import helmet from "helmet";

/**
 * The one policy every answer carries: the web UI and the API documentation load everything from
 * this server (scripts, styles, the API and the event stream), images also as `data:` URLs (the
 * Swagger UI's icons), and no page of this server may be framed by any other page.
 */
export const contentSecurityPolicy = {
  "default-src": ["'self'"],
  "script-src": ["'self'"],
  "style-src": ["'self'"],
  "img-src": ["'self'", "data:"],
  "font-src": ["'self'", "data:"],
  "connect-src": ["'self'"],
  "object-src": ["'none'"],
  "base-uri": ["'self'"],
  "form-action": ["'self'"],
  "frame-ancestors": ["'none'"],
} as const;

/**
 * Security headers on every answer (helmet): the policy above, `X-Frame-Options: DENY` for
 * browsers that predate `frame-ancestors`, `nosniff`, and `Referrer-Policy: same-origin` (the
 * server's own pages still send a Referer to the server, which the sign-in session's origin check
 * falls back on; other sites get none). No HSTS: whoever terminates TLS in front sets it.
 */
export function securityHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: { useDefaults: false, directives: contentSecurityPolicy },
    xFrameOptions: { action: "deny" },
    referrerPolicy: { policy: "same-origin" },
    strictTransportSecurity: false,
    // The browser SDKs read the frontend API and OFREP from other origins (CORS); CORP would refuse them where CORS allows.
    crossOriginResourcePolicy: false,
  });
}
