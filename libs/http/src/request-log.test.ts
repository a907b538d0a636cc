import { Writable } from "node:stream";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "@vexil/logger";
import { listen, type RunningServer } from "./listen.js";
import { requestId } from "./request-id.js";
import { requestLog, type RequestLogLevel } from "./request-log.js";

let running: RunningServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** A server answering `/status/<code>` behind the request log, and the lines it wrote. */
async function serve(level: string, sdkLevel?: RequestLogLevel) {
  const lines: Array<Record<string, any>> = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().trim().split("\n")) lines.push(JSON.parse(line));
      done();
    },
  });
  const app = express();
  app.use(requestId, requestLog(createLogger({ service: "test", level, destination }), sdkLevel));
  app.get("/health", (_req, res) => res.json({ health: "GOOD" }));
  app.get("/metrics", (_req, res) => res.type("text/plain").send("up 1\n"));
  app.get(/^(?:\/api\/client\/features|\/api\/frontend)?\/status\/(\d+)/, (req, res) => {
    res.setHeader("location", "/invite/0123456789abcdef0123456789abcdef/signup");
    res.status(Number(req.params[0])).end();
  });
  running = await listen(app, 0, "127.0.0.1");
  const get = async (path: string) => {
    const res = await fetch(`${running!.url}${path}`, {
      headers: { "x-request-id": "req-1", authorization: "default:development.secretsecretsecret" },
      redirect: "manual",
    });
    await res.arrayBuffer();
    // The line is written when the response closes, just after the client has it.
    await new Promise((resolve) => setTimeout(resolve, 20));
  };
  return { lines, get };
}

describe("requestLog", () => {
  it("writes one line per request with request, response and time, without secrets", async () => {
    const { lines, get } = await serve("info");
    await get("/status/201?token=default:development.abcdefabcdef");
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toMatchObject({ level: 30, msg: "request completed", reqId: "req-1", req: { method: "GET" }, res: { statusCode: 201 } });
    expect(typeof line!.responseTime).toBe("number");
    const text = JSON.stringify(line);
    expect(text).not.toContain("secretsecretsecret");
    expect(text).not.toContain("abcdefabcdef");
    expect(text).not.toContain("0123456789abcdef0123456789abcdef");
  });

  it("does not log health probes", async () => {
    const { lines, get } = await serve("info");
    await get("/health");
    expect(lines).toEqual([]);
  });

  it("writes only what the level lets through: 503 as warn, other 5xx as errors", async () => {
    const { lines, get } = await serve("warn");
    await get("/status/200");
    await get("/status/404");
    await get("/status/503");
    await get("/status/500");
    expect(lines.map((line) => [line.level, line.res.statusCode, line.msg])).toEqual([
      [40, 503, "request completed"],
      [50, 500, "request errored"],
    ]);
  });

  it("writes SDK calls and scrapes at debug unless told otherwise, and their refusals and failures as any other", async () => {
    const quiet = await serve("info");
    for (const path of ["/api/client/features/status/200", "/api/frontend/status/200", "/metrics"]) await quiet.get(path);
    await quiet.get("/api/client/features/status/401");
    await quiet.get("/api/frontend/status/500");
    await quiet.get("/status/200");
    expect(quiet.lines.map((line) => [line.level, line.req.url])).toEqual([
      [30, "/api/client/features/status/401"],
      [50, "/api/frontend/status/500"],
      [30, "/status/200"],
    ]);

    await running?.close();
    const debug = await serve("debug");
    await debug.get("/api/client/features/status/200");
    expect(debug.lines.map((line) => line.level)).toEqual([20]);

    await running?.close();
    const told = await serve("info", "info");
    await told.get("/metrics");
    expect(told.lines.map((line) => line.level)).toEqual([30]);
  });
});
