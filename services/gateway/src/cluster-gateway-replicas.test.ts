import { request } from "node:http";
import { createServer, type Socket } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RunningServer } from "@vexil/http";
import { createLogger } from "@vexil/logger";
import { startClusterGateway } from "./cluster-gateway.js";
import { standIn, type Seen, type StandIn } from "./stand-in.fixture.js";

const logger = createLogger({ service: "test", level: "silent" });

let running: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const r of running.reverse()) await r.close();
  running = [];
});

/** A gateway in front of `count` frontend-eval replicas (admin and signal-ingest: one each). */
async function gatewayWith(count: number): Promise<{ gateway: RunningServer; replicas: StandIn[] }> {
  const replicas = await Promise.all(Array.from({ length: count }, (_, i) => standIn("frontend-eval", `fe-${i + 1}`)));
  const admin = await standIn("admin");
  const signals = await standIn("signal-ingest");
  running.push(...replicas, admin, signals);
  const gateway = await startClusterGateway(
    {
      addresses: { admin: [admin.url], "frontend-eval": replicas.map((r) => r.url), "signal-ingest": [signals.url] },
      port: 0,
      host: "127.0.0.1",
      probes: { probeEveryMs: 50 },
    },
    logger,
  );
  running.push(gateway);
  return { gateway, replicas };
}

const replicaOf = async (res: Response) => ((await res.json()) as Seen).replica;

/** Connections open on the gateway's own server now. */
const gatewayConnections = (gateway: RunningServer) =>
  new Promise<number>((resolve, reject) => gateway.server.getConnections((err, count) => (err ? reject(err) : resolve(count))));

describe("the cluster gateway in front of several replicas", () => {
  it("balances requests round-robin over the replicas of a surface", async () => {
    const { gateway } = await gatewayWith(3);
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) seen.push(await replicaOf(await fetch(`${gateway.url}/api/client/features`)));
    expect(seen.filter((r) => r === "fe-1")).toHaveLength(2);
    expect(seen.filter((r) => r === "fe-2")).toHaveLength(2);
    expect(seen.filter((r) => r === "fe-3")).toHaveLength(2);
  });

  it("sends a GET that found its replica gone to another one, and stops sending to the gone one", async () => {
    const { gateway, replicas } = await gatewayWith(2);
    replicas[0]!.state.mode = "refuse";
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${gateway.url}/api/client/features`);
      expect(res.status).toBe(200);
      expect(await replicaOf(res)).toBe("fe-2");
    }
    // Refused once, then taken out: the later requests never reached it.
    expect(replicas[0]!.received).toHaveLength(0);
  });

  it("does not send again a request that could change something: 503 in the error shape, tried on one replica", async () => {
    const { gateway, replicas } = await gatewayWith(2);
    for (const replica of replicas) replica.state.mode = "refuse";
    const arrivals = replicas.map((r) => r.nextRequest());
    const res = await fetch(`${gateway.url}/api/frontend`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ name: "NotReady", message: "The frontend-eval service is not reachable" });
    const reached = await Promise.all(
      arrivals.map((a) => Promise.race([a.then(() => 1), new Promise((r) => setTimeout(() => r(0), 300))])),
    );
    expect(reached.reduce((a, b) => (a as number) + (b as number), 0)).toBe(1);
  });

  it("hands a stream over when its replica stops being ready: it is closed, and the reconnect lands on another", async () => {
    const { gateway, replicas } = await gatewayWith(2);
    for (const replica of replicas) replica.state.endStreams = false;
    const first = await fetch(`${gateway.url}/api/client/streaming`);
    const from = first.headers.get("x-replica")!;
    const holder = replicas.find((r) => r.state && from === `fe-${replicas.indexOf(r) + 1}`)!;
    const reader = first.body!.getReader();
    await reader.read();
    holder.state.ready = false;
    // The gateway closes the client's stream once its probe sees the replica unready.
    await vi.waitFor(async () => expect((await reader.read()).done).toBe(true), 5000);
    const again = await fetch(`${gateway.url}/api/client/streaming`);
    expect(again.headers.get("x-replica")).not.toBe(from);
    await again.body?.cancel();
  });
});

describe("the cluster gateway keeps streams where no replica can take them over", () => {
  /** Resolves once the replica has answered a few more probes: the gateway has seen its state since. */
  const probedAgain = async (replica: StandIn) => {
    const before = replica.probes;
    await vi.waitFor(() => expect(replica.probes).toBeGreaterThan(before + 2), 5000);
  };

  it("keeps a stream on its replica while no other replica is ready", async () => {
    const { gateway, replicas } = await gatewayWith(1);
    const replica = replicas[0]!;
    replica.state.endStreams = false;
    const stream = await fetch(`${gateway.url}/api/client/streaming`);
    const reader = stream.body!.getReader();
    await reader.read();
    replica.state.ready = false;
    await probedAgain(replica);
    expect(replica.open).toBe(1);
    expect(await gatewayConnections(gateway)).toBe(1);
    await reader.cancel();
  });

  it("hands it over once another replica is ready", async () => {
    const { gateway, replicas } = await gatewayWith(2);
    const [first, second] = replicas as [StandIn, StandIn];
    for (const replica of replicas) replica.state.endStreams = false;
    second.state.ready = false;
    await probedAgain(second);
    const stream = await fetch(`${gateway.url}/api/client/streaming`);
    expect(stream.headers.get("x-replica")).toBe("fe-1");
    const reader = stream.body!.getReader();
    await reader.read();
    first.state.ready = false;
    await probedAgain(first);
    expect(first.open).toBe(1);
    second.state.ready = true;
    await vi.waitFor(async () => expect((await reader.read()).done).toBe(true), 5000);
  });
});

describe("the cluster gateway's streams end with their client", () => {
  /** Opens a stream with a raw request the test can abort at will. */
  function openStream(gateway: RunningServer) {
    const req = request(`${gateway.url}/api/client/streaming`);
    req.on("error", () => undefined);
    const response = new Promise<import("node:http").IncomingMessage>((resolve) => req.on("response", resolve));
    req.end();
    return { req, response };
  }

  it.each(["before the replica answered", "while the replica streams"])(
    "ends the upstream request when the client aborts %s",
    async (stage) => {
      const { gateway, replicas } = await gatewayWith(1);
      const replica = replicas[0]!;
      replica.state.holdStreams = stage === "before the replica answered";
      replica.state.endStreams = false;
      const streams = Array.from({ length: 20 }, () => openStream(gateway));
      await vi.waitFor(() => expect(replica.open).toBe(20), 5000);
      if (stage === "while the replica streams") await Promise.all(streams.map((s) => s.response));
      for (const stream of streams) stream.req.destroy();
      await vi.waitFor(() => expect(replica.open).toBe(0), 5000);
      await vi.waitFor(async () => expect(await gatewayConnections(gateway)).toBe(0), 5000);
    },
  );

  it("leaves nothing open when the client aborts while its stream waits for a replica to come back", async () => {
    const { gateway, replicas } = await gatewayWith(1);
    const replica = replicas[0]!;
    replica.state.mode = "refuse";
    const stream = openStream(gateway);
    await replica.nextRequest();
    stream.req.destroy();
    replica.state.mode = "up";
    replica.state.endStreams = false;
    // The held request would retry every 200 ms: give it several chances to (wrongly) reach the replica.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(replica.received.filter((r) => r.url === "/api/client/streaming")).toHaveLength(0);
    expect(replica.open).toBe(0);
    await vi.waitFor(async () => expect(await gatewayConnections(gateway)).toBe(0), 5000);
  });
});

describe("the cluster gateway's kept-alive upstream connections", () => {
  /**
   * A replica that keeps connections alive, then closes one as the next request arrives on it: as
   * a process does whose idle timeout fires just as the connection is reused.
   */
  async function replicaClosingReusedConnections() {
    const requests: Array<{ path: string; onConnection: number }> = [];
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
      let onConnection = 0;
      let pending = "";
      socket.on("data", (chunk: Buffer) => {
        pending += chunk.toString("latin1");
        let end: number;
        while ((end = pending.indexOf("\r\n\r\n")) >= 0) {
          const path = pending.slice(0, end).split(" ")[1] ?? "";
          pending = pending.slice(end + 4);
          onConnection++;
          requests.push({ path, onConnection });
          if (path !== "/ready" && onConnection > 1) return void socket.destroy();
          const body = path === "/ready" ? "" : JSON.stringify({ replica: "fe-1", url: path });
          socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    const replica = {
      url: `http://127.0.0.1:${port}`,
      requests,
      close: () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          server.close(() => resolve());
        }),
    };
    running.push(replica);
    return replica;
  }

  it("sends a request again on a new connection when its kept-alive one was closed as it was reused, and keeps the replica", async () => {
    const replica = await replicaClosingReusedConnections();
    const admin = await standIn("admin");
    const signals = await standIn("signal-ingest");
    running.push(admin, signals);
    const gateway = await startClusterGateway(
      {
        addresses: { admin: [admin.url], "frontend-eval": [replica.url], "signal-ingest": [signals.url] },
        port: 0,
        host: "127.0.0.1",
        probes: { probeEveryMs: 50 },
      },
      logger,
    );
    running.push(gateway);
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${gateway.url}/api/client/features?n=${i}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ url: `/api/client/features?n=${i}` });
    }
    const sdkRequests = replica.requests.filter((r) => r.path !== "/ready");
    // Each later request reached a kept-alive connection first (which closed), then a new one: the one replica was never taken out.
    expect(sdkRequests.filter((r) => r.onConnection > 1).length).toBeGreaterThan(0);
    expect(sdkRequests.filter((r) => r.onConnection === 1)).toHaveLength(4);
  });
});
