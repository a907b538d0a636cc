import type { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import express, { type Router } from "express";
import { createProxyMiddleware } from "http-proxy-middleware";
import { NotReady } from "@vexil/errors";
import type { Logger } from "@vexil/logger";
import { publicRoutes, type RoutedService } from "./routes.js";

export type ServiceAddresses = Record<RoutedService, string>;

/**
 * Cluster mode: forwards each public prefix to the process that owns it, bodies untouched. A
 * service that is down answers 503 in the error shape until it is back.
 */
export function createProxyRouter(addresses: ServiceAddresses, logger: Logger): Router {
  const router = express.Router();
  // Counted per public prefix: the service behind counts the route templates.
  router.use((req, res, next) => {
    const route = publicRoutes.find(({ prefix }) => req.path === prefix || req.path.startsWith(`${prefix}/`));
    if (route) res.locals.metricsRoute = `${route.prefix}/*`;
    next();
  });
  for (const service of new Set(publicRoutes.map((r) => r.service))) {
    const prefixes = publicRoutes.filter((r) => r.service === service).map((r) => r.prefix);
    router.use(
      createProxyMiddleware<IncomingMessage, ServerResponse>({
        target: addresses[service],
        pathFilter: (path) => prefixes.some((p) => path === p || path.startsWith(`${p}/`)),
        xfwd: true,
        // SSE streams must not be buffered or cut by the proxy.
        proxyTimeout: 0,
        on: {
          error: (err, _req, res) => {
            logger.warn({ err, service }, "upstream unavailable");
            const error = new NotReady(`The ${service} service is not reachable`);
            if (res instanceof Socket) return void res.destroy();
            if (!res.headersSent) res.writeHead(error.status, { "content-type": "application/json" });
            res.end(JSON.stringify(error.toBody()));
          },
        },
      }),
    );
  }
  return router;
}
