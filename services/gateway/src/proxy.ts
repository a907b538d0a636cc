import type { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import express, { type Router } from "express";
import { createProxyMiddleware } from "http-proxy-middleware";
import { NotReady } from "@vexil/errors";
import type { Logger } from "@vexil/logger";
import { publicRoutes, type RoutedService } from "./routes.js";

export type ServiceAddresses = Record<RoutedService, string>;

/** How long a streaming request waits for its service to come back before it gets 503. */
const streamHoldMs = 30_000;
const streamRetryMs = 200;
const forwardedHeaders = ["x-forwarded-for", "x-forwarded-port", "x-forwarded-proto", "x-forwarded-host"] as const;

function isStream(req: IncomingMessage): boolean {
  return req.method === "GET" && (req.url ?? "").split("?")[0] === "/api/client/streaming";
}

/**
 * Cluster mode: forwards each public prefix to the process that owns it, bodies untouched. A
 * service that is down answers 503 in the error shape until it is back.
 *
 * Streams follow their service's life: when the service dies mid-response the client's response
 * is cut at once (an SDK then reconnects instead of listening to a silent stream), and a stream
 * request arriving while the service restarts waits for it (up to 30 s) instead of failing, so
 * the SDK's reconnect lands on the restarted service without backing off.
 */
export function createProxyRouter(addresses: ServiceAddresses, logger: Logger): Router {
  const router = express.Router();
  // Counted per public prefix: the service behind counts the route templates.
  router.use((req, res, next) => {
    const route = publicRoutes.find(({ prefix }) => req.path === prefix || req.path.startsWith(`${prefix}/`));
    if (route) res.locals.metricsRoute = `${route.prefix}/*`;
    next();
  });
  // A held stream is sent again with the client's forwarded headers, not the ones a try appended to.
  const clientForwarded = new WeakMap<IncomingMessage, Array<string | string[] | undefined>>();
  router.use((req, _res, next) => {
    if (isStream(req)) {
      const headers = forwardedHeaders.map((h) => req.headers[h]);
      clientForwarded.set(req, headers);
    }
    next();
  });
  for (const service of new Set(publicRoutes.map((r) => r.service))) {
    const prefixes = publicRoutes.filter((r) => r.service === service).map((r) => r.prefix);
    const firstTried = new WeakMap<IncomingMessage, number>();
    const proxy = createProxyMiddleware<IncomingMessage, ServerResponse>({
      target: addresses[service],
      pathFilter: (path) => prefixes.some((p) => path === p || path.startsWith(`${p}/`)),
      xfwd: true,
      // SSE streams must not be buffered or cut by the proxy.
      proxyTimeout: 0,
      on: {
        proxyReq: (_proxyReq, req) => {
          if (!firstTried.has(req)) firstTried.set(req, Date.now());
        },
        proxyRes: (proxyRes, _req, res) => {
          proxyRes.once("close", () => {
            if (!proxyRes.complete) res.destroy();
          });
        },
        error: (err, req, res) => {
          if (res instanceof Socket) return void res.destroy();
          if (res.headersSent) return void res.destroy();
          const triedAt = firstTried.get(req);
          const headers = clientForwarded.get(req);
          const unreachable = ["ECONNREFUSED", "ECONNRESET"].includes((err as NodeJS.ErrnoException).code ?? "");
          // The request itself is done (read and forwarded) after the first try; only its connection says the client left.
          const clientGone = () => req.socket.destroyed || res.destroyed;
          if (isStream(req) && unreachable && triedAt && headers && Date.now() - triedAt < streamHoldMs && !clientGone()) {
            setTimeout(() => {
              if (clientGone()) return;
              // The proxy appends to the forwarded headers on each try; start again from the client's.
              forwardedHeaders.forEach((h, i) => {
                const value = headers[i];
                if (value === undefined) delete req.headers[h];
                else req.headers[h] = value;
              });
              void proxy(req as express.Request, res as express.Response, () => res.destroy());
            }, streamRetryMs);
            return;
          }
          logger.warn({ err, service }, "upstream unavailable");
          const error = new NotReady(`The ${service} service is not reachable`);
          res.writeHead(error.status, { "content-type": "application/json" });
          res.end(JSON.stringify(error.toBody()));
        },
      },
    });
    router.use(proxy);
  }
  return router;
}
