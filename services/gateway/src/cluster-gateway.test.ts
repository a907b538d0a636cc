import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { RunningServer } from "@vexil/http";
import { createLogger } from "@vexil/logger";
import { startClusterGateway } from "./cluster-gateway.js";
import type { RoutedService } from "./routes.js";
import { standIn, type Seen } from "./stand-in.fixture.js";

const logger = createLogger({ service: "test", level: "silent" });

describe("the cluster gateway", () => {
  let services: Record<RoutedService, Awaited<ReturnType<typeof standIn>>>;
  let gateway: RunningServer;
  /** An address where nothing listens. */
  let nowhere: string;

  beforeAll(async () => {
    services = {
      admin: await standIn("admin"),
      "frontend-eval": await standIn("frontend-eval"),
      "signal-ingest": await standIn("signal-ingest"),
    };
    const closed = await standIn("admin");
    nowhere = closed.url;
    await closed.close();
    gateway = await startClusterGateway(
      {
        addresses: {
          admin: [services.admin.url],
          "frontend-eval": [services["frontend-eval"].url],
          "signal-ingest": [services["signal-ingest"].url],
        },
        port: 0,
        host: "127.0.0.1",
        probes: { probeEveryMs: 50 },
      },
      logger,
    );
  });
  afterAll(async () => {
    await gateway?.close();
    await Promise.all(Object.values(services ?? {}).map((s) => s.close()));
  });
  const health = async () =>
    Object.values(
      ((await (await fetch(`${gateway.url}/health`)).json()) as { details: { surfaces: Record<string, Array<{ ready: boolean }>> } })
        .details.surfaces,
    );

  beforeEach(async () => {
    for (const service of Object.values(services)) Object.assign(service.state, { mode: "up", ready: true, dieInStream: false });
    // A request that found one down took it out until its next probe: wait for that.
    await vi.waitFor(async () => expect((await health()).every((surface) => surface.every((r) => r.ready))).toBe(true), 10_000);
  });

  it("forwards each prefix to the process that owns it, method, path, query and body untouched", async () => {
    const body = JSON.stringify({ name: "checkout", nested: { a: [1, 2] } });
    const res = await fetch(`${gateway.url}/api/admin/projects/default/features?sort=name`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "user:secret" },
      body,
    });
    const seen = (await res.json()) as Seen;
    expect(seen).toMatchObject({ service: "admin", method: "POST", url: "/api/admin/projects/default/features?sort=name", body });
    expect(seen.headers.authorization).toBe("user:secret");

    for (const [path, service] of [
      ["/auth/simple/login", "admin"],
      ["/api/client/features", "frontend-eval"],
      ["/ofrep/v1/evaluate/flags", "frontend-eval"],
      ["/api/signal-endpoint/deploys", "signal-ingest"],
    ] as const) {
      expect(((await (await fetch(`${gateway.url}${path}`)).json()) as Seen).service, path).toBe(service);
    }
  });

  it("tells the service who the client is and how it was reached", async () => {
    const seen = (await (await fetch(`${gateway.url}/api/admin/ui-config`)).json()) as Seen;
    expect(seen.headers["x-forwarded-for"]).toBe("127.0.0.1");
    expect(seen.headers["x-forwarded-proto"]).toBe("http");
    expect(seen.headers["x-forwarded-host"]).toBe(new URL(gateway.url).host);
  });

  it("passes on a client's X-Forwarded-* only when it trusts the client as a proxy", async () => {
    const spoofed = { "x-forwarded-for": "203.0.113.7", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" };
    // This gateway trusts loopback (the default of a service, given here as an ingress would be).
    const believed = (await (await fetch(`${gateway.url}/api/admin/ui-config`, { headers: spoofed })).json()) as Seen;
    expect(believed.headers).toMatchObject({ "x-forwarded-for": "203.0.113.7,127.0.0.1", "x-forwarded-host": "evil.example" });
    expect(believed.headers["x-forwarded-proto"]).toBe("https,http");
    const strict = await startClusterGateway(
      {
        addresses: { admin: [services.admin.url], "frontend-eval": [nowhere], "signal-ingest": [nowhere] },
        port: 0,
        host: "127.0.0.1",
        trustProxy: "none",
      },
      logger,
    );
    try {
      const seen = (await (await fetch(`${strict.url}/api/admin/ui-config`, { headers: spoofed })).json()) as Seen;
      expect(seen.headers).toMatchObject({
        "x-forwarded-for": "127.0.0.1",
        "x-forwarded-host": new URL(strict.url).host,
        "x-forwarded-proto": "http",
      });
    } finally {
      await strict.close();
    }
  });

  it("answers a path under /api that no service owns itself, with 404 in the error shape", async () => {
    const res = await fetch(`${gateway.url}/api/nothing/here`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ id: expect.any(String), name: "NotFoundError", message: expect.any(String) });
  });

  it("answers 503 in the error shape, naming the service, while a process is down", async () => {
    services["signal-ingest"].state.mode = "refuse";
    const res = await fetch(`${gateway.url}/api/signal-endpoint/deploys`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({
      id: expect.any(String),
      name: "NotReady",
      message: "The signal-ingest service is not reachable",
    });
  });

  it("holds an SDK stream while its service restarts, then connects it with the client's forwarded headers only", async () => {
    const frontend = services["frontend-eval"];
    frontend.state.mode = "refuse";
    const refused = frontend.nextRequest();
    const stream = fetch(`${gateway.url}/api/client/streaming`, { headers: { "x-forwarded-for": "203.0.113.7" } });
    await refused;
    // A plain request is not held: it fails at once while the stream waits.
    expect((await fetch(`${gateway.url}/api/client/features`)).status).toBe(503);
    frontend.state.mode = "up";
    const res = await stream;
    expect(res.status).toBe(200);
    expect(res.headers.get("x-seen-forwarded-for")).toBe("203.0.113.7,127.0.0.1");
    expect(await res.text()).toContain("event: connected");
  });

  it("cuts an SDK stream at once when its service dies mid-response, so the SDK reconnects", async () => {
    services["frontend-eval"].state.dieInStream = true;
    const res = await fetch(`${gateway.url}/api/client/streaming`);
    expect(res.status).toBe(200);
    // The client's stream ends (cleanly or not) with what came before, instead of staying open and silent.
    const ended = await res.text().then(
      (text) => text,
      () => "event: connected\n",
    );
    expect(ended).toContain("event: connected");
  });

  it("stays ready while any surface has a ready replica, and says in /health which have none", async () => {
    services.admin.state.ready = false;
    await vi.waitFor(async () => expect((await health())[0]!.every((r) => !r.ready)).toBe(true), 10_000);
    const ready = await fetch(`${gateway.url}/ready`);
    expect(ready.status).toBe(200);
    const { details } = (await (await fetch(`${gateway.url}/health`)).json()) as { details: { reasons: unknown[] } };
    expect(details.reasons).toContainEqual({ name: "replicas:admin", reason: "0 of 1 ready: its paths answer 503" });
  });

  it("is not ready when no replica of any surface answers", async () => {
    const lonely = await startClusterGateway(
      { addresses: { admin: [nowhere], "frontend-eval": [nowhere], "signal-ingest": [nowhere] }, port: 0, host: "127.0.0.1" },
      logger,
    );
    try {
      const res = await fetch(`${lonely.url}/ready`);
      expect(res.status).toBe(503);
      expect(((await res.json()) as { checks: { name: string; ready: boolean }[] }).checks).toEqual([
        expect.objectContaining({ name: "replicas", ready: false }),
      ]);
    } finally {
      await lonely.close();
    }
  });
});
