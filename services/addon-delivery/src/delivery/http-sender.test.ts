import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TargetRefused } from "@vexil/outbound";
import { createHttpSender } from "./http-sender.js";

describe("http sender", () => {
  let server: Server;
  let port: number;
  const received: Array<{ url?: string; headers: Record<string, unknown>; body: string }> = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        received.push({ url: req.url, headers: req.headers, body });
        if (req.url === "/slow") return setTimeout(() => res.end("late"), 500);
        res.statusCode = req.url === "/fail" ? 503 : 200;
        res.end(req.url === "/fail" ? "try later" : "ok");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const allowing = () => createHttpSender({ allowPrivate: true, timeoutMs: 200 });
  // Answers expected in time get a timeout no loaded machine reaches (name lookup included).
  const patient = () => createHttpSender({ allowPrivate: true, timeoutMs: 30_000 });
  const strict = () => createHttpSender({ allowPrivate: false, timeoutMs: 200 });

  it("posts the body and headers and reports any status", async () => {
    await expect(patient()({ url: `http://127.0.0.1:${port}/ok`, headers: { "x-a": "1" }, body: '{"a":1}' })).resolves.toEqual({
      statusCode: 200,
      body: "ok",
    });
    expect(received.at(-1)).toMatchObject({ body: '{"a":1}', headers: { "x-a": "1", "content-length": "7" } });
    await expect(patient()({ url: `http://localhost:${port}/fail`, headers: {}, body: "" })).resolves.toEqual({
      statusCode: 503,
      body: "try later",
    });
  });

  it("gives up on a target that does not answer in time", async () => {
    await expect(allowing()({ url: `http://127.0.0.1:${port}/slow`, headers: {}, body: "" })).rejects.toThrow(/no answer within 200 ms/);
  });

  it("refuses private literals and names resolving to them, before connecting", async () => {
    // Only /ok is asked for here: the previous test's /slow request may still arrive late on a loaded machine.
    const reachedOk = () => received.filter((r) => r.url === "/ok").length;
    const before = reachedOk();
    const literal = await strict()({ url: `http://127.0.0.1:${port}/ok`, headers: {}, body: "" }).catch((e: unknown) => e);
    expect(literal).toBeInstanceOf(TargetRefused);
    expect(String(literal)).toMatch(/127\.0\.0\.1 is a loopback address/);
    const named = await strict()({ url: `http://localhost:${port}/ok`, headers: {}, body: "" }).catch((e: unknown) => e);
    expect(named).toBeInstanceOf(TargetRefused);
    expect(String(named)).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    expect(reachedOk()).toBe(before);
  });

  it("refuses a name when any of its addresses is private (DNS rebinding)", async () => {
    const sender = createHttpSender({
      allowPrivate: false,
      timeoutMs: 200,
      resolve: async () => [
        { address: "93.184.216.34", family: 4 },
        { address: "10.0.0.7", family: 4 },
      ],
    });
    await expect(sender({ url: "http://mixed.example/x", headers: {}, body: "" })).rejects.toThrow(
      /mixed\.example resolves to 10\.0\.0\.7, a private address/,
    );
  });

  it("refuses what is not an http(s) URL", async () => {
    await expect(allowing()({ url: "file:///etc/passwd", headers: {}, body: "" })).rejects.toBeInstanceOf(TargetRefused);
    await expect(allowing()({ url: "not a url", headers: {}, body: "" })).rejects.toBeInstanceOf(TargetRefused);
  });
});
