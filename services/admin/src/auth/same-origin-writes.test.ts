import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpApp, listen, type RunningServer } from "@vexil/http";
import { createLogger } from "@vexil/logger";
import { sameOriginWrites } from "./same-origin-writes.js";
import { sessionCookieName } from "./user-authenticators.js";

const servers: RunningServer[] = [];

/** A server with the guard in front of a route that records what got through. */
async function serve(trustProxy: string, publicUrl?: string) {
  const router = express.Router();
  router.use(sameOriginWrites({ publicUrl, exemptPaths: ["/exempt"] }));
  router.all(["/change", "/exempt"], (req, res) => {
    res.json({ through: req.method });
  });
  const app = createHttpApp({ logger: createLogger({ service: "test", level: "silent" }), routers: [router], trustProxy });
  const server = await listen(app, 0, "127.0.0.1");
  servers.push(server);
  return server;
}

let direct: RunningServer;
let proxied: RunningServer;
beforeAll(async () => {
  direct = await serve("false", "https://flags.example.com");
  proxied = await serve("loopback");
});
afterAll(async () => {
  for (const server of servers) await server.close();
});

const cookie = `${sessionCookieName}=abc`;
const json = { "content-type": "application/json" };

async function send(server: RunningServer, headers: Record<string, string>, { method = "POST", path = "/change" } = {}) {
  const res = await fetch(`${server.url}${path}`, { method, headers, redirect: "manual" });
  const body = (await res.json()) as { name?: string; message?: string };
  return { status: res.status, ...body };
}

describe("sameOriginWrites", () => {
  it("lets a change with the session cookie through from this server's own pages, with or without a body", async () => {
    const own = new URL(direct.url).origin;
    expect((await send(direct, { cookie, origin: own, ...json })).status).toBe(200);
    for (const method of ["PUT", "PATCH", "DELETE"])
      expect((await send(direct, { cookie, origin: own, ...json }, { method })).status).toBe(200);
    // Without Origin, the Referer's origin counts.
    expect((await send(direct, { cookie, referer: `${own}/projects/default`, ...json })).status).toBe(200);
    // The public address counts too (a proxy that rewrites Host).
    expect((await send(direct, { cookie, origin: "https://flags.example.com", ...json })).status).toBe(200);
  });

  it("refuses it from another origin, another port of the same host included, or from nowhere", async () => {
    const other = new URL(direct.url);
    other.port = String(Number(other.port) + 1);
    const froms: Record<string, string>[] = [
      { origin: other.origin },
      { origin: "null" },
      { referer: `${other.origin}/form.html` },
      {},
      { origin: "not a url" },
    ];
    for (const from of froms) {
      const res = await send(direct, { cookie, ...from, ...json });
      expect(res, JSON.stringify(from)).toMatchObject({ status: 403, name: "NoAccessError" });
    }
    // An Origin from elsewhere wins over a Referer that names this server.
    expect((await send(direct, { cookie, origin: other.origin, referer: `${direct.url}/`, ...json })).status).toBe(403);
  });

  it("refuses a form's content type, or none, even from the right origin", async () => {
    const origin = new URL(direct.url).origin;
    for (const type of ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain", undefined]) {
      const res = await send(direct, { cookie, origin, ...(type ? { "content-type": type } : {}) });
      expect(res, String(type)).toMatchObject({ status: 415, name: "ContentTypeerror" });
    }
  });

  it("leaves reads, token callers, callers without the cookie and exempt paths alone", async () => {
    const elsewhere = { origin: "http://evil.example" };
    expect((await send(direct, { cookie, ...elsewhere }, { method: "GET" })).status).toBe(200);
    expect((await send(direct, { cookie, authorization: "*:*.secret", ...elsewhere })).status).toBe(200);
    expect((await send(direct, { ...elsewhere })).status).toBe(200);
    expect((await send(direct, { cookie, ...elsewhere }, { path: "/exempt" })).status).toBe(200);
  });

  it("judges the origin by X-Forwarded-Host and -Proto only from a trusted proxy", async () => {
    const forwarded = { "x-forwarded-host": "flags.example.com", "x-forwarded-proto": "https" };
    // Behind a trusted proxy (loopback here), the browser used the forwarded address.
    expect((await send(proxied, { cookie, origin: "https://flags.example.com", ...forwarded, ...json })).status).toBe(200);
    expect((await send(proxied, { cookie, origin: new URL(proxied.url).origin, ...forwarded, ...json })).status).toBe(403);
    // From a peer that is not trusted, the forwarded headers are the client's own words: ignored.
    expect(
      (await send(direct, { cookie, origin: "https://flags.example.org", ...forwarded, "x-forwarded-host": "flags.example.org", ...json }))
        .status,
    ).toBe(403);
    expect((await send(direct, { cookie, origin: new URL(direct.url).origin, ...forwarded, ...json })).status).toBe(200);
  });
});
