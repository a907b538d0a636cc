import { Writable } from "node:stream";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "@vexil/logger";
import { listen, type RunningServer } from "./listen.js";
import { requestId } from "./request-id.js";
import { requestLog } from "./request-log.js";

let running: RunningServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** A server answering `/status/<code>` behind the request log, and the lines it wrote. */
async function serve(level: string) {
  const lines: Array<Record<string, any>> = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().trim().split("\n")) lines.push(JSON.parse(line));
      done();
    },
  });
  const app = express();
  app.use(requestId, requestLog(createLogger({ service: "test", level, destination })));
  app.get("/health", (_req, res) => res.json({ health: "GOOD" }));
  app.get(/^\/status\/(\d+)/, (req, res) => {
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
});
