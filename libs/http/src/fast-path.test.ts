import { Writable } from "node:stream";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "@vexil/logger";
import { createMetricsRegistry } from "@vexil/metrics";
import { createHttpApp } from "./app.js";
import { withFastRoutes, type FastRoute } from "./fast-path.js";
import { listen, type RunningServer } from "./listen.js";

let running: RunningServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe("withFastRoutes", () => {
  it("answers its exact GET paths before express, leaves the rest to express, and logs, counts and ids both", async () => {
    const lines: Array<Record<string, any>> = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        for (const line of chunk.toString().trim().split("\n")) lines.push(JSON.parse(line));
        done();
      },
    });
    const logger = createLogger({ service: "test", level: "info", destination });
    const registry = createMetricsRegistry();
    const router = express.Router();
    router.get("/fast", (req, res) => res.json({ by: "express", ip: req.ip, query: req.query }));
    const app = createHttpApp({ logger, routers: [router], metrics: { registry }, trustProxy: "loopback" });
    // Answers unless asked to pass, with what express would have read.
    const route: FastRoute = {
      path: "/fast",
      answer(_req, res, request) {
        const query = request.query();
        if (query.pass) return false;
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ by: "fast", ip: request.ip(), query }));
        return true;
      },
    };
    running = await listen(withFastRoutes(app, [route], { logger, metrics: registry }), 0, "127.0.0.1");
    const get = async (path: string, init: RequestInit = {}) => {
      const res = await fetch(`${running!.url}${path}`, init);
      return { status: res.status, id: res.headers.get("x-request-id"), headers: res.headers, body: await res.text() };
    };

    const fast = await get("/fast?user[id]=u1", { headers: { "x-forwarded-for": "203.0.113.9", "x-request-id": "given-1" } });
    expect(JSON.parse(fast.body)).toEqual({ by: "fast", ip: "203.0.113.9", query: { user: { id: "u1" } } });
    expect(fast.id).toBe("given-1");
    // The same security headers as express sends.
    expect(fast.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(fast.headers.get("x-content-type-options")).toBe("nosniff");
    const passed = await get("/fast?pass=1&user[id]=u1", { headers: { "x-forwarded-for": "203.0.113.9" } });
    expect(JSON.parse(passed.body)).toEqual({ by: "express", ip: "203.0.113.9", query: { pass: "1", user: { id: "u1" } } });
    expect(passed.id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await get("/fast", { method: "POST" })).status).toBe(404);
    expect((await get("/fast/more")).status).toBe(404);
    expect((await get(`/fast?${"x".repeat(9000)}`)).status).toBe(414);

    await new Promise((resolve) => setTimeout(resolve, 50));
    const answered = lines.filter((line) => line.req?.url?.startsWith("/fast?"));
    expect(answered.map((line) => [line.reqId, line.res.statusCode])).toEqual([
      ["given-1", 200],
      [passed.id, 200],
      [expect.any(String), 414],
    ]);
    const counted = (await registry.getSingleMetric("vexil_http_requests_total")!.get()).values;
    expect(counted.find((value) => value.labels.route === "/fast" && value.labels.status === "200")?.value).toBe(2);
  });
});
