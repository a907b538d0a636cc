import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunningServer } from "@vexil/http";
import { createLogger } from "@vexil/logger";
import { startClusterGateway } from "./cluster-gateway.js";
import type { RoutedService } from "./routes.js";

const logger = createLogger({ service: "test", level: "silent" });

/** What a stand-in service saw of a request. */
interface Seen {
  service: RoutedService;
  method: string;
  url: string;
  body: string;
  headers: IncomingMessage["headers"];
}

/**
 * A stand-in for one service process: echoes what reached it. In `refuse` mode it drops each
 * request's connection unanswered (a process going away); with `dieInStream` a stream request gets
 * one event before the process "dies" mid-response.
 */
async function standIn(service: RoutedService) {
  const state = { mode: "up" as "up" | "refuse", ready: true, dieInStream: false };
  let arrived: () => void = () => {};
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    arrived();
    if (state.mode === "refuse") return void req.socket.destroy();
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      if (req.url === "/ready") return void res.writeHead(state.ready ? 200 : 503).end();
      if (req.url === "/api/client/streaming") {
        res.writeHead(200, { "content-type": "text/event-stream", "x-seen-forwarded-for": String(req.headers["x-forwarded-for"]) });
        res.write("event: connected\ndata: {}\n\n");
        if (state.dieInStream) setImmediate(() => res.socket?.destroy());
        else res.end();
        return;
      }
      const seen: Seen = { service, method: req.method ?? "", url: req.url ?? "", body, headers: req.headers };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(seen));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    state,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Resolves when the next request reaches the service. */
    nextRequest: () => new Promise<void>((resolve) => (arrived = resolve)),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

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
          admin: services.admin.url,
          "frontend-eval": services["frontend-eval"].url,
          "signal-ingest": services["signal-ingest"].url,
        },
        port: 0,
        host: "127.0.0.1",
      },
      logger,
    );
  });
  afterAll(async () => {
    await gateway?.close();
    await Promise.all(Object.values(services ?? {}).map((s) => s.close()));
  });
  beforeEach(() => {
    for (const service of Object.values(services)) Object.assign(service.state, { mode: "up", ready: true, dieInStream: false });
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

  it("is ready when every service is, and names the one that is not", async () => {
    expect((await fetch(`${gateway.url}/ready`)).status).toBe(200);
    services.admin.state.ready = false;
    const res = await fetch(`${gateway.url}/ready`);
    expect(res.status).toBe(503);
    const { checks } = (await res.json()) as { checks: { name: string; ready: boolean }[] };
    expect(checks.filter((c) => !c.ready).map((c) => c.name)).toEqual(["admin"]);
  });

  it("is not ready while a service does not answer at all", async () => {
    const lonely = await startClusterGateway(
      {
        addresses: { admin: nowhere, "frontend-eval": services["frontend-eval"].url, "signal-ingest": services["signal-ingest"].url },
        port: 0,
        host: "127.0.0.1",
      },
      logger,
    );
    try {
      const res = await fetch(`${lonely.url}/ready`);
      expect(res.status).toBe(503);
      expect(((await res.json()) as { checks: { name: string; ready: boolean }[] }).checks).toContainEqual(
        expect.objectContaining({ name: "admin", ready: false }),
      );
    } finally {
      await lonely.close();
    }
  });
});
