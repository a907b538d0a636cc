import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestHandler } from "express";
import stdSerializers from "pino-std-serializers";
import { redactSecretsInUrl, type Logger } from "@vexil/logger";
import { metricsPaths } from "@vexil/metrics";

/** Probes polled by orchestrators every few seconds; logging them is noise. */
const unlogged = new Set(["/health", "/ready"]);

/** A level of the request lines (pino's, or `silent` for none). */
export type RequestLogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

/**
 * Where a request line of the calls machines repeat goes by default: the SDKs' polls, streams,
 * metrics and registrations and Prometheus's scrapes are most of the requests at SDK scale, and
 * would be most of the log at info.
 */
export const defaultSdkRequestLogLevel: RequestLogLevel = "debug";

/** The SDK APIs (`/api/client`, `/api/frontend`, `/ofrep`) and the metrics endpoints. */
export function isSdkOrScrapeRequest(url: string): boolean {
  const queryAt = url.indexOf("?");
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  return (
    path.startsWith("/api/client/") ||
    path === "/api/frontend" ||
    path.startsWith("/api/frontend/") ||
    path.startsWith("/ofrep/") ||
    metricsPaths.includes(path)
  );
}

/**
 * 503 means "not ready yet" (a service restarting), expected during deploys; other 5xx are bugs.
 * Below 400, an SDK call or a scrape is logged at `sdkLevel`; a refusal (a bad token) stays at info.
 */
function levelFor(statusCode: number, sdkOrScrape: boolean, sdkLevel: RequestLogLevel): RequestLogLevel {
  if (statusCode === 503) return "warn";
  if (statusCode >= 500) return "error";
  return sdkOrScrape && statusCode < 400 ? sdkLevel : "info";
}

/**
 * Writes the request's line once it is answered (or abandoned), with the request, the response
 * and its time, as pino-http writes it; `started` is `Date.now()` when the request arrived. The
 * line is built only if its level is on.
 */
export function logWhenAnswered(
  logger: Logger,
  req: IncomingMessage,
  res: ServerResponse,
  started: number,
  sdkLevel: RequestLogLevel = defaultSdkRequestLogLevel,
): void {
  res.once("close", () => {
    const level = levelFor(res.statusCode, isSdkOrScrapeRequest(req.url ?? ""), sdkLevel);
    if (level === "silent" || !logger.isLevelEnabled(level)) return;
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
 * One line per request (see `logWhenAnswered`), SDK calls and scrapes at `sdkLevel`. Unlike
 * pino-http it builds nothing per request unless the line is going to be written: no child
 * loggers and no serialised request when the level is off, which showed as the largest cost of
 * small SDK answers in profiles.
 */
export function requestLog(logger: Logger, sdkLevel: RequestLogLevel = defaultSdkRequestLogLevel): RequestHandler {
  return (req, res, next) => {
    if (!unlogged.has(req.url)) logWhenAnswered(logger, req, res, Date.now(), sdkLevel);
    next();
  };
}
