import express from "express";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "@vexil/config";
import { createHttpApp, listen, type RunningServer } from "@vexil/http";
import { createLogger } from "@vexil/logger";
import { allowBrowserOrigins, frontendApiOriginsEnv } from "./cross-origin.js";

const servers: RunningServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

/** A surface behind the CORS handler that, like the real ones, wants a token. */
async function serve(origins: string[]) {
  const router = express.Router();
  router.use("/api/frontend", allowBrowserOrigins(origins));
  router.all("/api/frontend", (req, res) => {
    if (!req.headers.authorization) return void res.status(401).json({ name: "AuthenticationRequired" });
    res.setHeader("etag", '"1"');
    res.json({ toggles: [] });
  });
  const server = await listen(
    createHttpApp({ logger: createLogger({ service: "test", level: "silent" }), routers: [router] }),
    0,
    "127.0.0.1",
  );
  servers.push(server);
  return (init: RequestInit & { headers: Record<string, string> }) => fetch(`${server.url}/api/frontend`, init);
}

const preflight = (origin: string) => ({
  method: "OPTIONS",
  headers: { origin, "access-control-request-method": "GET", "access-control-request-headers": "authorization,unleash-appname" },
});

describe("CORS for the browser SDKs", () => {
  it("allows every origin with *, answering the preflight without a token and exposing the ETag", async () => {
    const call = await serve(["*"]);
    const res = await call(preflight("https://shop.example"));
    expect(res.status).toBe(204);
    expect(Object.fromEntries([...res.headers].filter(([name]) => name.startsWith("access-control-")))).toEqual({
      "access-control-allow-origin": "*",
      "access-control-allow-methods": "GET,POST",
      "access-control-allow-headers": "authorization,unleash-appname",
      "access-control-expose-headers": "ETag",
      "access-control-max-age": "86400",
    });
    const read = await call({ headers: { origin: "https://shop.example", authorization: "token" } });
    expect(read.headers.get("access-control-allow-origin")).toBe("*");
    expect(read.headers.get("access-control-expose-headers")).toBe("ETag");
    expect(read.headers.get("access-control-allow-credentials")).toBeNull();
    // An error reaches the page too, so the SDK can say why.
    expect((await call({ headers: { origin: "https://shop.example" } })).headers.get("access-control-allow-origin")).toBe("*");
  });

  it("allows only the listed origins, each answered with its own name", async () => {
    const call = await serve(["https://shop.example", "http://localhost:3000"]);
    const allowed = await call({ headers: { origin: "http://localhost:3000", authorization: "token" } });
    expect(allowed.headers.get("access-control-allow-origin")).toBe("http://localhost:3000");
    expect(allowed.headers.get("vary")).toContain("Origin");
    for (const origin of ["https://evil.example", "https://shop.example.evil", "http://localhost:3001"]) {
      const res = await call({ headers: { origin, authorization: "token" } });
      expect(res.headers.get("access-control-allow-origin"), origin).toBeNull();
      expect((await call(preflight(origin))).headers.get("access-control-allow-origin"), origin).toBeNull();
    }
  });

  it("allows none when the list is empty: a preflight then meets the token check", async () => {
    const call = await serve([]);
    const res = await call(preflight("https://shop.example"));
    expect(res.status).toBe(401);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("reads UNLEASH_FRONTEND_API_ORIGINS as Unleash does: * by default, origins only", () => {
    expect(loadConfig(frontendApiOriginsEnv, {}).UNLEASH_FRONTEND_API_ORIGINS).toEqual(["*"]);
    expect(loadConfig(frontendApiOriginsEnv, { UNLEASH_FRONTEND_API_ORIGINS: "https://a.example, http://b.example:8080" })).toEqual({
      UNLEASH_FRONTEND_API_ORIGINS: ["https://a.example", "http://b.example:8080"],
    });
    for (const bad of ["a", "https://a.example/", "https://a.example/path", "ftp:/x"]) {
      expect(() => loadConfig(frontendApiOriginsEnv, { UNLEASH_FRONTEND_API_ORIGINS: bad }), bad).toThrow(ConfigError);
    }
  });
});
