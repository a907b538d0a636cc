import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestHandler } from "express";
import stdSerializers from "pino-std-serializers";
import { redactSecretsInUrl, type Logger } from "@vexil/logger";

/** Probes polled by orchestrators every few seconds; logging them is noise. */
const unlogged = new Set(["/health", "/ready"]);

/** 503 means "not ready yet" (a service restarting), expected during deploys; other 5xx are bugs. */
function levelFor(statusCode: number): "info" | "warn" | "error" {
  if (statusCode === 503) return "warn";
  return statusCode >= 500 ? "error" : "info";
}

/**
 * Writes the request's line once it is answered (or abandoned), with the request, the response
 * and its time, as pino-http writes it; `started` is `Date.now()` when the request arrived. The
 * line is built only if its level is on.
 */
export function logWhenAnswered(logger: Logger, req: IncomingMessage, res: ServerResponse, started: number): void {
  res.once("close", () => {
    const level = levelFor(res.statusCode);
    if (!logger.isLevelEnabled(level)) return;
    // Paths and `location` headers may carry secrets (token and invite URLs); the parsed query
    // and params would repeat them unredacted, and the URL already shows both.
    const { query: _query, params: _params, ...request } = stdSerializers.req(req);
    request.url = redactSecretsInUrl(request.url);
    const response = stdSerializers.res(res);
    const location = response.headers?.location;
    if (typeof location === "string") response.headers = { ...response.headers, location: redactSecretsInUrl(location) };
    const line = { reqId: req.headers["x-request-id"], req: request, res: response, responseTime: Date.now() - started };
    const message = !res.writableFinished ? "request aborted" : level === "error" ? "request errored" : "request completed";
    logger[level](line, message);
  });
}

/**
 * One line per request (see `logWhenAnswered`). Unlike pino-http it builds nothing per request
 * unless the line is going to be written: no child loggers and no serialised request when the
 * level is off, which showed as the largest cost of small SDK answers in profiles.
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    if (!unlogged.has(req.url)) logWhenAnswered(logger, req, res, Date.now());
    next();
  };
}
