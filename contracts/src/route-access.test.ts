import { isAppRoute, type AppRoute, type AppRouter } from "@ts-rest/core";
import { describe, expect, it } from "vitest";
import { adminContract } from "./admin.js";
import { permissions, routeAccessOf, type ScopeSource } from "./route-access.js";

function routesOf(router: AppRouter, prefix = ""): [string, AppRoute][] {
  return Object.entries(router).flatMap(([name, entry]) =>
    isAppRoute(entry) ? [[`${prefix}${name}`, entry] as [string, AppRoute]] : routesOf(entry, `${prefix}${name}.`),
  );
}
const adminRoutes = routesOf(adminContract);
const known = new Set<string>(Object.values(permissions));

/** The request part a scope source reads must exist: a path parameter, or a query or body the route takes. */
function sourceExists(route: AppRoute, source: ScopeSource): boolean {
  const [part, key] = source.split(".", 2);
  if (part === "params") return route.path.split("/").includes(`:${key}`);
  if (part === "query") return route.method === "GET" || "query" in route;
  return route.method !== "GET" && "body" in route;
}

describe("admin route access", () => {
  it.each(adminRoutes)("%s declares who may call it", (_name, route) => {
    const access = routeAccessOf(route);
    expect(access, `${route.method} ${route.path} needs metadata: requires(...) or unguarded(reason)`).toBeDefined();
    if (access!.permission === "none") {
      expect(access!.reason.length, "an unguarded route says why").toBeGreaterThan(10);
      return;
    }
    expect(known.has(access!.permission), access!.permission).toBe(true);
    for (const source of Object.values(access!.scope ?? {})) {
      const read = source.replace(/^flag:/, "") as ScopeSource;
      expect(sourceExists(route, read), `${route.method} ${route.path} reads ${source}`).toBe(true);
    }
  });
});
