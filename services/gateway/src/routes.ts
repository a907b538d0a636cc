import type { RequestHandler, Router } from "express";

/** Which service answers which public path prefix; addon-delivery has none. */
export type RoutedService = "admin" | "frontend-eval" | "signal-ingest";

export const publicRoutes: ReadonlyArray<{ prefix: string; service: RoutedService }> = [
  { prefix: "/api/admin", service: "admin" },
  { prefix: "/auth", service: "admin" },
  { prefix: "/invite", service: "admin" },
  { prefix: "/logout", service: "admin" },
  { prefix: "/feedback", service: "admin" },
  { prefix: "/api/frontend", service: "frontend-eval" },
  { prefix: "/api/client", service: "frontend-eval" },
  { prefix: "/ofrep", service: "frontend-eval" },
  { prefix: "/api/signal-endpoint", service: "signal-ingest" },
];

export function routeFor(path: string): RoutedService | undefined {
  return publicRoutes.find(({ prefix }) => path === prefix || path.startsWith(`${prefix}/`))?.service;
}

/**
 * Single-process mode: hands each request straight to the router of the service that owns its
 * prefix, as the cluster proxy does, so an SDK request never walks the admin service's routes.
 */
export function dispatchByPrefix(routers: Record<RoutedService, Router>): RequestHandler {
  return (req, res, next) => {
    const service = routeFor(req.path);
    if (!service) return next();
    routers[service](req, res, next);
  };
}
