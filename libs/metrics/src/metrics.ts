import { timingSafeEqual } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";

export { Counter, Gauge, Histogram, Registry } from "prom-client";

/** Where every Vexil process serves its metrics: Unleash's path, and the one Prometheus assumes. */
export const metricsPaths = ["/internal-backstage/prometheus", "/metrics"];

/** One registry per process, with the process metrics (CPU, memory, event-loop lag, GC). */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Probes and the scrape itself are polled every few seconds; counting them is noise. */
const uncounted = new Set(["/health", "/ready", ...metricsPaths]);

/** Latency buckets in seconds, from an in-memory SDK answer (sub-millisecond) to a slow admin write. */
const latencyBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The route template that answered, never the raw path: raw paths carry flag names, token secrets
 * and invite tokens, and would make one time series per value. A proxy sets `res.locals.metricsRoute`
 * (the prefix it forwarded); a request no route took is `unmatched`.
 */
export function routeTemplate(req: Request, res: Response): string {
  const forwarded = res.locals.metricsRoute;
  if (typeof forwarded === "string") return forwarded;
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path === "string") return `${req.baseUrl}${path}`;
  return "unmatched";
}

/** Records one answered request: its method, route template, status and when it started (`process.hrtime.bigint()`). */
export type RequestRecorder = (method: string, route: string, status: number, started: bigint) => void;

const recorders = new WeakMap<Registry, RequestRecorder>();

/**
 * The request counter and latency histogram of a registry, made once per registry: the express
 * middleware and handlers that answer outside express (the SDK fast path) count into the same series.
 */
export function requestRecorder(registry: Registry): RequestRecorder {
  const existing = recorders.get(registry);
  if (existing) return existing;
  const labelNames = ["method", "route", "status"] as const;
  const requests = new Counter({
    name: "vexil_http_requests_total",
    help: "HTTP requests answered, per method, route template and status",
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "vexil_http_request_duration_seconds",
    help: "Time from request to the end of the answer (for SDK streams: how long the stream stayed open)",
    labelNames,
    buckets: latencyBuckets,
    registers: [registry],
  });
  const recorder: RequestRecorder = (method, route, status, started) => {
    const labels = { method, route, status: String(status) };
    requests.inc(labels);
    duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
  };
  recorders.set(registry, recorder);
  return recorder;
}

/** Counts each answered request and its latency, per method, route template and status. */
export function requestMetrics(registry: Registry): RequestHandler {
  const record = requestRecorder(registry);
  return (req, res, next) => {
    if (uncounted.has(req.path)) return next();
    const started = process.hrtime.bigint();
    res.once("close", () => record(req.method, routeTemplate(req, res), res.statusCode, started));
    next();
  };
}

/**
 * `GET /internal-backstage/prometheus` and `GET /metrics` in the Prometheus text format. Open, as
 * Unleash leaves `/internal-backstage` open, unless a token is configured: then the scraper sends
 * `Authorization: Bearer <token>` and anything else gets 401.
 */
export function metricsEndpoint(registry: Registry, { token }: { token?: string } = {}): RequestHandler {
  const expected = token ? Buffer.from(`Bearer ${token}`) : undefined;
  return (req, res, next) => {
    if (req.method !== "GET" || !metricsPaths.includes(req.path)) return next();
    if (expected) {
      const given = Buffer.from(req.headers.authorization ?? "");
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        res.status(401).set("www-authenticate", "Bearer").type("text/plain").send("metrics need Authorization: Bearer <METRICS_TOKEN>\n");
        return;
      }
    }
    registry
      .metrics()
      .then((text) => res.type(registry.contentType).send(text))
      .catch(next);
  };
}
