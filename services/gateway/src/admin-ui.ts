import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import express, { type Router } from "express";
import type { Logger } from "@vexil/logger";
import { routeFor } from "./routes.js";

/** Paths the gateway answers itself (besides the services' prefixes): never the app's. */
const ownPrefixes = ["/api", "/docs", "/internal-backstage", "/metrics", "/health", "/ready"];

function isOwnPath(requestPath: string): boolean {
  return (
    routeFor(requestPath) !== undefined || ownPrefixes.some((prefix) => requestPath === prefix || requestPath.startsWith(`${prefix}/`))
  );
}

/** Where `npm run build` puts the admin UI (`services/admin-ui/dist`), found through the workspace link. */
export function adminUiDirectory(): string {
  const manifest = createRequire(import.meta.url).resolve("@vexil/admin-ui/package.json");
  return path.join(path.dirname(manifest), "dist");
}

/**
 * Serves the built admin UI at `/`: its hashed assets with a long cache, and `index.html` for every
 * other GET outside the API, so deep links (`/projects/x/features/y`) open the app. Undefined, with
 * a warning, when the UI has not been built.
 */
export function createAdminUiRouter(logger: Logger, directory = adminUiDirectory()): Router | undefined {
  const indexFile = path.join(directory, "index.html");
  if (!existsSync(indexFile)) {
    logger.warn({ directory }, "the admin UI is not built (run npm run build): / serves no web UI");
    return undefined;
  }
  const router = express.Router();
  router.use("/assets", express.static(path.join(directory, "assets"), { immutable: true, maxAge: "1y", index: false, fallthrough: true }));
  router.get("*", (req, res, next) => {
    if (isOwnPath(req.path) || req.path.startsWith("/assets/")) return next();
    // index.html names the current asset hashes: it must never be cached.
    res.setHeader("cache-control", "no-cache");
    res.sendFile(indexFile);
  });
  return router;
}
