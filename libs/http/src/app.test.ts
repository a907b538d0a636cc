import { initContract } from "@ts-rest/core";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { NameExistsError } from "@vexil/errors";
import { createLogger } from "@vexil/logger";
import { createHttpApp } from "./app.js";
import { listen, type RunningServer } from "./listen.js";
import { mountContract } from "./validation.js";

const c = initContract();
const contract = c.router({
  create: {
    method: "POST",
    path: "/things",
    body: z.object({ name: z.string().min(2), size: z.number().int() }),
    responses: { 201: z.object({ name: z.string() }) },
  },
  explode: { method: "GET", path: "/explode", responses: { 200: z.object({}) } },
});

let running: RunningServer;
let ready = true;

beforeAll(async () => {
  const router = express.Router();
  mountContract(router, contract, {
    create: async ({ body }) => {
      if (body.name === "taken") throw new NameExistsError("A thing named taken already exists");
      return { status: 201, body: { name: body.name } };
    },
    explode: async () => {
      throw new Error("database password is hunter2");
    },
  });
  router.post("/api/admin/features-batch/import", (req, res) => {
    res.json({ received: JSON.stringify(req.body).length });
  });
  router.get("/whoami", (req, res) => {
    res.json({ ip: req.ip });
  });
  const app = createHttpApp({
    logger: createLogger({ service: "test", level: "silent" }),
    routers: [router],
    readiness: [
      {
        name: "store",
        check: async () => {
          if (!ready) throw new Error("store down");
        },
      },
    ],
  });
  running = await listen(app, 0, "127.0.0.1");
});
afterAll(() => running.close());

const post = (body: string, type = "application/json") =>
  fetch(`${running.url}/things`, { method: "POST", headers: { "content-type": type }, body });

describe("createHttpApp", () => {
  it("answers health and echoes the request id", async () => {
    const res = await fetch(`${running.url}/health`, { headers: { "x-request-id": "abc-123" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ health: "GOOD" });
    expect(res.headers.get("x-request-id")).toBe("abc-123");
  });

  it("reports readiness of each engine", async () => {
    expect((await fetch(`${running.url}/ready`)).status).toBe(200);
    ready = false;
    const res = await fetch(`${running.url}/ready`);
    ready = true;
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ checks: [{ name: "store", ready: false, error: "store down" }] });
  });

  it("serves the contract", async () => {
    const res = await post(JSON.stringify({ name: "lamp", size: 3 }));
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ name: "lamp" });
  });

  it("names the offending field on validation failure", async () => {
    const res = await post(JSON.stringify({ name: "x", size: 1.5 }));
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body).toMatchObject({ id: expect.any(String), name: "ValidationError" });
    expect(body.message).toContain("body.name");
    expect(body.details.map((d: { path: string }) => d.path)).toEqual(["body.name", "body.size"]);
  });

  it("maps domain errors", async () => {
    const res = await post(JSON.stringify({ name: "taken", size: 1 }));
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ name: "NameExistsError", message: "A thing named taken already exists" });
  });

  it("refuses a body over 100 kB with 413", async () => {
    const res = await post(JSON.stringify({ name: "x".repeat(101 * 1024), size: 1 }));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ name: "ContentTooLarge" });
  });

  it("takes up to 500 kB on the flag import paths, as Unleash does, and refuses more with 413", async () => {
    const body = (chars: number) => JSON.stringify({ data: "x".repeat(chars) });
    const importAt = (payload: string) =>
      fetch(`${running.url}/api/admin/features-batch/import`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: payload,
      });
    const accepted = await importAt(body(490_000));
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ received: body(490_000).length });
    const refused = await importAt(body(501_000));
    expect(refused.status).toBe(413);
    expect(await refused.json()).toMatchObject({ name: "ContentTooLarge", message: expect.stringContaining("500000") });
    expect((await post(JSON.stringify({ name: "x".repeat(200_000), size: 1 }))).status).toBe(413);
  });

  it("refuses an oversize chunked body with 413", async () => {
    const big = "x".repeat(150_000);
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(JSON.stringify({ name: big, size: 1 })));
        controller.close();
      },
    });
    const res = await fetch(`${running.url}/things`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
  });

  it("refuses text/plain with 415", async () => {
    const res = await post("hello", "text/plain");
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ name: "ContentTypeerror" });
  });

  it("refuses malformed JSON with 400", async () => {
    const res = await post("{nope");
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ name: "ValidationError" });
  });

  it("refuses a body that is not valid UTF-8 with 400, and takes well-formed text in any script", async () => {
    for (const bytes of [
      Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0x61, 0xff, 0x62, 0x22, 0x7d]), // {"name":"a\xffb"}
      Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc3]), Buffer.from('","size":1}')]), // a lead byte without its continuation
      Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('","size":1}')]), // an encoded surrogate
    ]) {
      const res = await fetch(`${running.url}/things`, { method: "POST", headers: { "content-type": "application/json" }, body: bytes });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        id: expect.any(String),
        name: "ValidationError",
        message: "Request body is not valid UTF-8",
      });
    }
    const declared = await fetch(`${running.url}/things`, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8" },
      body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]),
    });
    expect(declared.status).toBe(400);
    const fine = await post(JSON.stringify({ name: "Grüße, 旗, 🚩", size: 1 }));
    expect(fine.status).toBe(201);
    expect(await fine.json()).toEqual({ name: "Grüße, 旗, 🚩" });
  });

  it("refuses a key holding U+0000 at any depth with 400, and takes U+0000 inside a value", async () => {
    const res = await post('{"name":"ok","size":1,"meta":{"payload":{"a\\u0000b":1}}}');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      name: "ValidationError",
      message: "Invalid body.meta.payload.a\\u0000b: is a key holding U+0000, which cannot be stored",
      details: [{ path: "body.meta.payload.a\\u0000b", message: "Must be a key without U+0000" }],
    });
    const inValue = await post(JSON.stringify({ name: "a\u0000b", size: 1 }));
    expect(inValue.status).toBe(201);
    expect(await inValue.json()).toEqual({ name: "a\u0000b" });
  });

  it("answers unknown paths with 404 in the error shape", async () => {
    const res = await fetch(`${running.url}/nowhere`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ name: "NotFoundError", message: "Could not find GET /nowhere" });
  });

  it("takes the client address from X-Forwarded-For only when a trusted proxy (here loopback) sent it", async () => {
    const res = await fetch(`${running.url}/whoami`, { headers: { "x-forwarded-for": "203.0.113.7" } });
    expect(await res.json()).toEqual({ ip: "203.0.113.7" });
    const spoofed = await fetch(`${running.url}/whoami`, { headers: { "x-forwarded-for": "203.0.113.7, 198.51.100.2" } });
    // The nearest untrusted hop wins: a client cannot hide behind an address it adds itself.
    expect(await spoofed.json()).toEqual({ ip: "198.51.100.2" });
  });

  it("sends the security headers on every answer, errors included", async () => {
    for (const res of [await fetch(`${running.url}/health`), await fetch(`${running.url}/nowhere`), await post("{")]) {
      expect(res.headers.get("content-security-policy")).toBe(
        "default-src 'self';script-src 'self';style-src 'self';img-src 'self' data:;font-src 'self' data:;connect-src 'self';" +
          "object-src 'none';base-uri 'self';form-action 'self';frame-ancestors 'none'",
      );
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("same-origin");
      expect(res.headers.get("strict-transport-security")).toBeNull();
    }
  });

  it("hides unexpected errors", async () => {
    const res = await fetch(`${running.url}/explode`);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain("hunter2");
    expect(text).not.toContain("at ");
    expect(JSON.parse(text)).toMatchObject({ name: "InternalError" });
  });
});

describe("health and readiness with dependencies", () => {
  it("stays ready while a dependency is down, and says so in the health details; a hung one does not hold /health", async () => {
    let busUp = false;
    const app = createHttpApp({
      logger: createLogger({ service: "test", level: "silent" }),
      routers: [],
      readiness: [{ name: "store", check: async () => undefined }],
      dependencies: [
        {
          name: "bus",
          check: async () => {
            if (!busUp) throw new Error("NATS unreachable since 2026-01-01T00:00:00.000Z");
          },
        },
        { name: "cache", check: () => new Promise<void>(() => undefined) },
      ],
      healthDetails: () => ({ degraded: [{ name: "snapshots:nats", reason: "not announced" }], snapshots: [{ ageSeconds: 3 }] }),
    });
    const server = await listen(app, 0, "127.0.0.1");
    try {
      expect((await fetch(`${server.url}/ready`)).status).toBe(200);
      const health = await fetch(`${server.url}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({
        health: "GOOD",
        details: {
          degraded: true,
          reasons: [
            { name: "bus", reason: "NATS unreachable since 2026-01-01T00:00:00.000Z" },
            { name: "cache", reason: "no answer within 1000 ms" },
            { name: "snapshots:nats", reason: "not announced" },
          ],
          dependencies: [
            { name: "bus", up: false },
            { name: "cache", up: false },
          ],
          snapshots: [{ ageSeconds: 3 }],
        },
      });
      busUp = true;
      expect((await (await fetch(`${server.url}/health`)).json()).details.dependencies[0]).toEqual({ name: "bus", up: true });
    } finally {
      await server.close();
    }
  });
});
