import express, { type Router } from "express";
import { describe, expect, it } from "vitest";
import { createHttpApp, listen } from "@vexil/http";
import { createLogger } from "@vexil/logger";
import { dispatchByPrefix, publicRoutes, routeFor, type RoutedService } from "./routes.js";

const logger = createLogger({ service: "test", level: "silent" });

describe("public path prefixes", () => {
  it("sends each prefix and the paths under it to the service that owns it", () => {
    expect(routeFor("/api/admin")).toBe("admin");
    expect(routeFor("/api/admin/projects/default/features")).toBe("admin");
    expect(routeFor("/auth/simple/login")).toBe("admin");
    expect(routeFor("/api/client/features")).toBe("frontend-eval");
    expect(routeFor("/api/frontend")).toBe("frontend-eval");
    expect(routeFor("/ofrep/v1/evaluate/flags")).toBe("frontend-eval");
    expect(routeFor("/api/signal-endpoint/deploys")).toBe("signal-ingest");
  });

  it("matches whole path segments only, and owns nothing else", () => {
    for (const path of ["/api/administrator", "/authors", "/api/clients", "/api", "/", "/projects/default", "/docs", "/health"]) {
      expect(routeFor(path), path).toBeUndefined();
    }
  });

  it("gives each prefix one owner", () => {
    const prefixes = publicRoutes.map((r) => r.prefix);
    expect(new Set(prefixes).size).toBe(prefixes.length);
  });

  it("hands a request to its service's router in one process, and any other to what follows", async () => {
    const routerOf = (service: RoutedService): Router => {
      const router = express.Router();
      // Each stand-in answers whatever reaches it, so a request shows which router it was given.
      router.use((req, res) => void res.json({ service, path: req.originalUrl }));
      return router;
    };
    const dispatch = dispatchByPrefix({
      admin: routerOf("admin"),
      "frontend-eval": routerOf("frontend-eval"),
      "signal-ingest": routerOf("signal-ingest"),
    });
    const fallthrough = express.Router().get("/projects/default", (_req, res) => void res.json({ service: "none" }));
    const running = await listen(createHttpApp({ logger, routers: [dispatch, fallthrough] }), 0, "127.0.0.1");
    try {
      const get = async (path: string) => (await fetch(`${running.url}${path}`)).json();
      expect(await get("/api/admin/projects?x=1")).toEqual({ service: "admin", path: "/api/admin/projects?x=1" });
      expect(await get("/api/client/features")).toEqual({ service: "frontend-eval", path: "/api/client/features" });
      expect(await get("/api/signal-endpoint/deploys")).toEqual({ service: "signal-ingest", path: "/api/signal-endpoint/deploys" });
      expect(await get("/projects/default")).toEqual({ service: "none" });
    } finally {
      await running.close();
    }
  });
});
