import { isUtf8 } from "node:buffer";
import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import { formPostPaths } from "@vexil/contracts";
import { ContentTooLarge, ContentTypeerror, isVexilError, RequestTimeout, ValidationError } from "@vexil/errors";

/** The spec's "100 kB" default, read in SI units so a 101 kB body is refused however it is counted. */
export const defaultBodyLimitBytes = 100_000;
/** Paths taking larger bodies, as Unleash does: a flag import of thousands of flags (Unleash's 500 kB). */
export const largerBodyLimits: Readonly<Record<string, number>> = { "/api/admin/features-batch/": 500_000 };

/** A JSON media type: `application/json` or `application/<something>+json`, with any parameters. */
export const jsonType = /^application\/([\w.+-]*\+)?json\b/i;
const methodsWithBody = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const formType = /^application\/x-www-form-urlencoded\b/i;
/** A form posted where the contracts take one (an identity provider's answer through the browser). */
const isFormPost = (req: Parameters<RequestHandler>[0]) =>
  req.method === "POST" && formPostPaths.includes(req.path) && formType.test(req.headers["content-type"] ?? "");

function hasBody(req: Parameters<RequestHandler>[0]): boolean {
  const length = req.headers["content-length"];
  if (length !== undefined) return Number(length) > 0;
  return req.headers["transfer-encoding"] !== undefined;
}

/**
 * Refuses what the JSON parser would silently ignore or read too far into: a non-JSON body (415)
 * and a declared length over the limit (413). Used alone where bodies are proxied, not parsed.
 */
export function bodyGuard(limitBytes: number): RequestHandler {
  return (req, _res, next) => {
    if (!methodsWithBody.has(req.method) || !hasBody(req)) return next();
    const type = req.headers["content-type"] ?? "";
    if (!jsonType.test(type) && !isFormPost(req)) {
      return next(new ContentTypeerror(`Content-Type must be application/json, got '${type || "none"}'`));
    }
    const length = Number(req.headers["content-length"] ?? 0);
    if (length > limitBytes) {
      return next(new ContentTooLarge(`Request body is ${length} bytes; the limit is ${limitBytes} bytes`));
    }
    next();
  };
}

export function jsonBody(limitBytes: number): RequestHandler[] {
  return [
    bodyGuard(limitBytes),
    express.json({ limit: limitBytes, type: (req) => jsonType.test(req.headers["content-type"] ?? ""), verify: refuseInvalidUtf8 }),
    express.urlencoded({
      limit: limitBytes,
      extended: false,
      parameterLimit: 10,
      type: (req) => isFormPost(req as Parameters<RequestHandler>[0]),
    }),
    wellFormedBody,
  ];
}

/**
 * 408 when a body does not arrive in time (a declared Content-Length longer than what is sent
 * would otherwise hold the request until the socket times out), and the connection is closed.
 */
export function bodyTimeout(timeoutMs: number): RequestHandler {
  return (req, res, next) => {
    if (!methodsWithBody.has(req.method) || !hasBody(req) || req.readableEnded) return next();
    const timer = setTimeout(() => {
      if (req.readableEnded || res.headersSent) return;
      const error = new RequestTimeout(`The request body did not arrive within ${timeoutMs / 1000} s`);
      res.status(error.status).setHeader("connection", "close");
      res.json(error.toBody());
      res.once("finish", () => req.socket.destroy());
    }, timeoutMs);
    const clear = () => clearTimeout(timer);
    req.once("end", clear);
    req.once("close", clear);
    res.once("close", clear);
    next();
  };
}

/**
 * The parser decodes bytes that are not UTF-8 into U+FFFD, so a body with them would be stored as
 * text nobody sent: refused instead (400), as a body that is not JSON is. Other declared charsets
 * (UTF-16) are left to the decoder.
 */
function refuseInvalidUtf8(_req: unknown, _res: unknown, body: Buffer, encoding: string | null): void {
  if (encoding !== null && encoding.replace("-", "").toLowerCase() !== "utf8") return;
  if (isUtf8(body)) return;
  throw Object.assign(new Error("Request body is not valid UTF-8"), { status: 400, type: "encoding.invalid" });
}

/** Text with an unpaired UTF-16 surrogate (`"\ud800"` in JSON) is no text: it cannot be stored or sent on. */
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

interface Unstorable {
  path: string;
  message: string;
  rule: string;
}
const notText = { message: "contains an unpaired surrogate, which is not text", rule: "Must be well-formed text" };
const nulInKey = { message: "is a key holding U+0000, which cannot be stored", rule: "Must be a key without U+0000" };

/**
 * The first string or key no store could keep as sent: an unpaired surrogate anywhere, or U+0000
 * in a key (MongoDB's field names end at it, so it refuses them; any `z.record` and any free-form
 * payload would otherwise meet that refusal as a 500, part-way through a change).
 */
function findUnstorable(value: unknown, path: string, depth = 0): Unstorable | undefined {
  if (typeof value === "string") return loneSurrogate.test(value) ? { path, ...notText } : undefined;
  if (depth > 64 || value === null || typeof value !== "object") return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = `${path}.${key}`;
    if (loneSurrogate.test(key)) return { path: at, ...notText };
    if (key.includes("\u0000")) return { path: at.replaceAll("\u0000", "\\u0000"), ...nulInKey };
    const found = findUnstorable(item, at, depth + 1);
    if (found) return found;
  }
  return undefined;
}

const wellFormedBody: RequestHandler = (req, _res, next) => {
  const found = findUnstorable(req.body, "body");
  if (!found) return next();
  next(new ValidationError(`Invalid ${found.path}: ${found.message}`, [{ path: found.path, message: found.rule }]));
};

/** Turns body-parser failures (chunked bodies over the limit, malformed JSON) into spec errors. */
export const bodyParserErrors: ErrorRequestHandler = (err, _req, _res, next) => {
  // Already in the spec's shape (a body the parser read but `wellFormedBody` refused).
  if (isVexilError(err)) return next(err);
  const type = (err as { type?: string }).type;
  if (type === "entity.too.large") return next(new ContentTooLarge("Request body is larger than accepted"));
  if (type === "entity.parse.failed") return next(new ValidationError("Request body is not valid JSON"));
  if (type === "encoding.invalid") return next(new ValidationError("Request body is not valid UTF-8"));
  if (type === "encoding.unsupported" || type === "charset.unsupported") {
    return next(new ContentTypeerror("Unsupported body encoding"));
  }
  if (type === "request.size.invalid") return next(new ValidationError("The request body is shorter or longer than its Content-Length"));
  // A body that cannot be decoded as declared (Content-Encoding: gzip that is not gzip).
  if ((err as { status?: number }).status === 400)
    return next(new ValidationError(`The request body could not be read: ${(err as Error).message}`));
  next(err);
};
