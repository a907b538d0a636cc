import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Express, Request, RequestHandler, Response } from "express";
import proxyaddr from "proxy-addr";
import type { Logger } from "@vexil/logger";
import { requestRecorder, type Registry } from "@vexil/metrics";
import { maxUrlLength, securityHeadersSetting } from "./app.js";
import { assignRequestId } from "./request-id.js";
import { defaultSdkRequestLogLevel, logWhenAnswered, type RequestLogLevel } from "./request-log.js";

/** What a fast route may ask of a request, read as express would read it, and only on demand. */
export interface FastRequest {
  /** The query string without its `?` ("" when there is none). */
  readonly search: string;
  /** The query parsed by the app's query parser (what `req.query` would hold). */
  query(): Record<string, unknown>;
  /** The client's address under the app's `trust proxy` setting (what `req.ip` would be). */
  ip(): string | undefined;
}

/**
 * A GET route answered before express: `answer` writes the whole response and returns true, or
 * writes nothing and returns false to leave the request to express (an error, a first request that
 * must wait for something): express then answers it exactly as without the fast route.
 */
export interface FastRoute {
  path: string;
  answer(req: IncomingMessage, res: ServerResponse, request: FastRequest): boolean;
}

class RawRequest implements FastRequest {
  constructor(
    private readonly req: IncomingMessage,
    readonly search: string,
    private readonly parse: (search: string) => Record<string, unknown>,
    private readonly trust: (address: string, hop: number) => boolean,
  ) {}
  query(): Record<string, unknown> {
    return this.search ? this.parse(this.search) : {};
  }
  ip(): string | undefined {
    return proxyaddr(this.req, this.trust);
  }
}

/**
 * The request listener for a server: requests for the fast routes' exact paths go to them, and
 * everything else (and whatever they leave) to `app`. Express's per-request work (its router,
 * the request and response prototypes, the middleware stack) showed as most of the cost of the
 * small SDK answers; what of it applies to these routes is done here: the request id, the request
 * line in the log, the request metrics, the URL length limit and the security headers.
 */
export function withFastRoutes(
  app: Express,
  routes: readonly FastRoute[],
  {
    logger,
    metrics,
    sdkRequestLogLevel = defaultSdkRequestLogLevel,
  }: { logger: Logger; metrics?: Registry; sdkRequestLogLevel?: RequestLogLevel },
): RequestListener {
  if (routes.length === 0) return app;
  const byPath = new Map(routes.map((route) => [route.path, route]));
  const record = metrics ? requestRecorder(metrics) : undefined;
  // The app's own compiled settings, so the answers match what express would have read.
  const parseQuery = app.get("query parser fn") as (search: string) => Record<string, unknown>;
  const trust = app.get("trust proxy fn") as (address: string, hop: number) => boolean;
  const securityHeaders = app.get(securityHeadersSetting) as RequestHandler | undefined;
  return (req, res) => {
    const url = req.url ?? "";
    const queryAt = url.indexOf("?");
    const route = req.method === "GET" && url.length <= maxUrlLength ? byPath.get(queryAt < 0 ? url : url.slice(0, queryAt)) : undefined;
    if (!route) return app(req, res);
    const started = process.hrtime.bigint();
    const arrived = Date.now();
    const request = new RawRequest(req, queryAt < 0 ? "" : url.slice(queryAt + 1), parseQuery, trust);
    assignRequestId(req, res);
    // Synchronous: helmet only sets headers.
    securityHeaders?.(req as Request, res as Response, () => undefined);
    if (!route.answer(req, res, request)) return app(req, res);
    logWhenAnswered(logger, req, res, arrived, sdkRequestLogLevel);
    record?.("GET", route.path, res.statusCode, started);
  };
}
