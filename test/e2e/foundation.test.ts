import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSystem, type TestSystem } from "../src/harness.js";

let vexil: TestSystem;
beforeAll(async () => {
  vexil = await startTestSystem();
});
afterAll(() => vexil.stop());

describe("the compiled gateway under node", () => {
  it("answers health and readiness", async () => {
    // Live, with what it serves without named (nothing here: the bus and the cache are in-process;
    // each store takes writes).
    expect(await (await vexil.api("/health", { token: null })).json()).toMatchObject({
      health: "GOOD",
      details: {
        degraded: false,
        reasons: [],
        dependencies: [
          { name: "store-writes:admin", up: true },
          { name: "store-writes:signal-ingest", up: true },
          { name: "store-writes:addon-delivery", up: true },
          { name: "bus", up: true },
          { name: "cache", up: true },
        ],
        snapshots: expect.arrayContaining([expect.objectContaining({ environment: "development", ageSeconds: 0 })]),
      },
    });
    const ready = await vexil.api("/ready", { token: null });
    expect(ready.status).toBe(200);
    expect((await ready.json()).checks.map((c: { name: string }) => c.name)).toContain("store:admin");
  });

  it("serves the strategy list to an admin token", async () => {
    const res = await vexil.api("/api/admin/strategies");
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.version).toBe(1);
    expect(body.strategies.map((s: { name: string }) => s.name)).toEqual(
      expect.arrayContaining(["default", "flexibleRollout", "userWithId", "remoteAddress", "applicationHostname"]),
    );
  });

  it.each([
    ["no token", null, 401, "AuthenticationRequired"],
    ["an unknown token", "*:*.unknown", 401, "AuthenticationRequired"],
  ])("refuses %s with %i", async (_case, token, status, name) => {
    const res = await vexil.api("/api/admin/strategies", { token });
    expect(res.status).toBe(status);
    expect(await res.json()).toMatchObject({ id: expect.any(String), name, message: expect.any(String) });
  });

  it("refuses client and frontend tokens on admin paths with 403", async () => {
    for (const token of [vexil.tokens.client, vexil.tokens.frontend]) {
      const res = await vexil.api("/api/admin/strategies", { token });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ name: "NoAccessError" });
    }
  });

  it("answers an unknown path with 404 in the error shape", async () => {
    const res = await vexil.api("/api/admin/no-such-thing");
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ name: "NotFoundError" });
  });

  it("refuses a 101 kB body with 413 and text/plain with 415", async () => {
    const big = await vexil.api("/api/admin/strategies", { method: "POST", body: { name: "x".repeat(101 * 1024) } });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ name: "ContentTooLarge" });
    const plain = await vexil.api("/api/admin/strategies", {
      method: "POST",
      body: "hello",
      headers: { "content-type": "text/plain" },
    });
    expect(plain.status).toBe(415);
    expect(await plain.json()).toMatchObject({ name: "ContentTypeerror" });
  });

  it("serves the OpenAPI document and its page", async () => {
    const doc = await (await vexil.api("/docs/openapi.json", { token: null })).json();
    expect(doc.info.title).toBe("Vexil API");
    expect(Object.keys(doc.paths)).toContain("/api/admin/strategies");
    const page = await vexil.api("/docs", { token: null });
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    expect(await page.text()).toContain("swagger-ui");
  });
});

describe("a fresh start", () => {
  it("creates one admin token, shows it once, and keeps it across restarts", async () => {
    const fresh = await startTestSystem({ seedTokens: false });
    try {
      const secret = fresh.createdAdminSecret();
      expect(secret).toMatch(/^\*:\*\.[0-9a-f]+$/);
      expect(fresh.process.output()).toContain(`Vexil is running at http://localhost:${fresh.process.port}`);
      expect((await fresh.api("/api/admin/strategies", { token: secret })).status).toBe(200);

      await fresh.restart();
      expect(fresh.createdAdminSecret()).toBeUndefined();
      expect(fresh.process.output()).toContain("Admin API token: the one printed at the first start");
      expect((await fresh.api("/api/admin/strategies", { token: secret })).status).toBe(200);
    } finally {
      await fresh.stop();
    }
  }, 300_000);

  it("stops with one message listing every bad setting", async () => {
    await expect(startTestSystem({ env: { LOG_LEVEL: "loud", NATS_STREAM_REPLICAS: "9" } })).rejects.toThrow(
      /LOG_LEVEL[\s\S]*NATS_STREAM_REPLICAS|NATS_STREAM_REPLICAS[\s\S]*LOG_LEVEL/,
    );
  }, 300_000);
});
