import express, { type ErrorRequestHandler, type Express, type RequestHandler } from "express";
import type { Logger } from "@vexil/logger";
import { metricsEndpoint, requestMetrics, type Registry } from "@vexil/metrics";
import { UriTooLong } from "@vexil/errors";
import { bodyGuard, bodyParserErrors, bodyTimeout, defaultBodyLimitBytes, jsonBody, largerBodyLimits } from "./body.js";
import { errorHandler, notFound } from "./error-handler.js";
import { requestId } from "./request-id.js";
import { requestLog, type RequestLogLevel } from "./request-log.js";
import { securityHeaders } from "./security-headers.js";
import { trustProxySetting } from "./trust-proxy.js";

/** A named readiness probe: resolves when its engine answers, throws otherwise. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

/** A process's own part of its `/health` details. */
export interface HealthDetails {
  /** Why it serves less well than it could, beyond the dependencies it names. */
  degraded?: Array<{ name: string; reason: string }>;
  [detail: string]: unknown;
}

/** How long `/health` waits for a dependency's answer: a hung one must not fail the liveness probe. */
export const dependencyCheckMs = 1000;

/** Runs each check, with a time limit when given: whether it answered, and why not. */
export async function runChecks(checks: ReadinessCheck[], timeoutMs?: number) {
  return Promise.all(
    checks.map(async ({ name, check }) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        const limit =
          timeoutMs === undefined
            ? []
            : [
                new Promise<never>(
                  (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)),
                ),
              ];
        await Promise.race([check(), ...limit]);
        return { name, ready: true };
      } catch (err) {
        return { name, ready: false, error: err instanceof Error ? err.message : String(err) };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}

/** The app setting holding the security-headers middleware (see `securityHeaders`). */
export const securityHeadersSetting = "vexil security headers";

export const defaultTrustedProxies = "loopback, linklocal, uniquelocal";

/** Longest request target taken (414 above); longer ones than the header limit are refused by `listen`. */
export const maxUrlLength = 8192;
/** How long a request body may take to arrive (408 after). */
export const bodyTimeoutMs = 10_000;

export interface HttpAppOptions {
  logger: Logger;
  /** Routers (or dispatchers) mounted at the root in order; each owns its paths. */
  routers: RequestHandler[];
  /** What the process needs to serve its traffic: `/ready` answers 503 while one fails ("send me no traffic"). */
  readiness?: ReadinessCheck[];
  /**
   * What the process serves without, less well (NATS, Redis): never on `/ready`, reported with the
   * `health` details as degraded while one fails.
   */
  dependencies?: ReadinessCheck[];
  /** More for the `/health` details (e.g. the age of the flag snapshot served), and the process's own degraded reasons. */
  healthDetails?: () => HealthDetails;
  bodyLimitBytes?: number;
  /** false where bodies pass through untouched (the gateway's proxy): only guard them. */
  parseBodies?: boolean;
  /**
   * Which peers' `X-Forwarded-*` to believe for the client address (`req.ip`), scheme and host
   * (`TRUST_PROXY`, see `trustProxySetting`). By default, as a service behind the gateway: peers on
   * loopback and private networks, never public ones. The gateway, which faces the clients, trusts
   * none unless told.
   */
  trustProxy?: string;
  /** Extra handlers before the routers, e.g. the gateway's docs. */
  before?: RequestHandler[];
  /**
   * The process's metrics: requests are counted per route template, and the registry is served at
   * `/internal-backstage/prometheus` and `/metrics` (behind `Bearer <token>` when a token is set).
   */
  metrics?: { registry: Registry; token?: string };
  /** Error handlers tried before the generic one: each answers the errors of its own paths, or passes them on. */
  errorHandlers?: ErrorRequestHandler[];
  /** The level of the lines of SDK calls and scrapes answered (`SDK_REQUEST_LOG_LEVEL`; debug when not given). */
  sdkRequestLogLevel?: RequestLogLevel;
}

export function createHttpApp({
  logger,
  routers,
  readiness = [],
  dependencies = [],
  healthDetails,
  bodyLimitBytes = defaultBodyLimitBytes,
  parseBodies = true,
  trustProxy = defaultTrustedProxies,
  before = [],
  metrics,
  errorHandlers = [],
  sdkRequestLogLevel,
}: HttpAppOptions): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", trustProxySetting(trustProxy));
  // Surfaces compute their own validators (the client API's revision ETag); hashing every body is waste.
  app.set("etag", false);
  // Kept on the app so the routes answered before express (withFastRoutes) send the same headers.
  const headers = securityHeaders();
  app.set(securityHeadersSetting, headers);
  app.use(headers);
  app.use(requestId);
  app.use(requestLog(logger, sdkRequestLogLevel));
  app.use((req, _res, next) => {
    next(req.originalUrl.length > maxUrlLength ? new UriTooLong(`The URL is longer than ${maxUrlLength} characters`) : undefined);
  });
  if (metrics) {
    app.use(requestMetrics(metrics.registry));
    app.use(metricsEndpoint(metrics.registry, { token: metrics.token }));
  }

  // Live while the process answers at all (GOOD); the details say what it serves without now.
  app.get("/health", async (_req, res) => {
    if (dependencies.length === 0 && !healthDetails) return void res.json({ health: "GOOD" });
    const checked = await runChecks(dependencies, dependencyCheckMs);
    const { degraded: own = [], ...more } = healthDetails?.() ?? {};
    const reasons = [...checked.flatMap(({ name, ready, error }) => (ready ? [] : [{ name, reason: error ?? "down" }])), ...own];
    res.json({
      health: "GOOD",
      details: {
        degraded: reasons.length > 0,
        reasons,
        dependencies: checked.map(({ name, ready }) => ({ name, up: ready })),
        ...more,
      },
    });
  });
  app.get("/ready", async (_req, res) => {
    const results = await runChecks(readiness);
    const ready = results.every((r) => r.ready);
    res.status(ready ? 200 : 503).json({ health: ready ? "GOOD" : "BAD", checks: results });
  });

  const bodyHandling = (limit: number) =>
    express.Router().use(parseBodies ? [bodyTimeout(bodyTimeoutMs), ...jsonBody(limit)] : [bodyGuard(limit)]);
  const standardBodies = bodyHandling(bodyLimitBytes);
  const largerBodies = Object.entries(largerBodyLimits).map(([prefix, bytes]) => ({
    prefix,
    handle: bodyHandling(Math.max(bytes, bodyLimitBytes)),
  }));
  app.use((req, res, next) => (largerBodies.find(({ prefix }) => req.path.startsWith(prefix))?.handle ?? standardBodies)(req, res, next));
  app.use(bodyParserErrors);
  for (const handler of before) app.use(handler);
  for (const router of routers) app.use(router);
  app.use(notFound);
  for (const handler of errorHandlers) app.use(handler);
  app.use(errorHandler(logger));
  return app;
}
