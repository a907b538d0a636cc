import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { RoutedService } from "./routes.js";

/** What a stand-in service saw of a request. */
export interface Seen {
  service: RoutedService;
  replica: string;
  method: string;
  url: string;
  body: string;
  headers: IncomingMessage["headers"];
}

/**
 * A stand-in for one service process (one replica): echoes what reached it. In `refuse` mode it
 * drops each request's connection unanswered (a process going away); with `dieInStream` a stream
 * request gets one event before the process "dies" mid-response; with `holdStreams` a stream request
 * is left unanswered (a replica slow to answer) until the client or the test ends it. `open` counts
 * the requests whose connection is still open on this side.
 */
export async function standIn(service: RoutedService, replica: string = service) {
  const state = { mode: "up" as "up" | "refuse", ready: true, dieInStream: false, holdStreams: false, endStreams: true };
  let arrived: () => void = () => {};
  const open = new Set<IncomingMessage>();
  const received: Seen[] = [];
  let probes = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url !== "/ready") arrived();
    if (state.mode === "refuse") return void req.socket.destroy();
    open.add(req);
    res.once("close", () => open.delete(req));
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      if (req.url === "/ready") {
        probes++;
        return void res.writeHead(state.ready ? 200 : 503).end();
      }
      const seen: Seen = { service, replica, method: req.method ?? "", url: req.url ?? "", body, headers: req.headers };
      received.push(seen);
      if (req.url === "/api/client/streaming") {
        if (state.holdStreams) return;
        res.writeHead(200, {
          "content-type": "text/event-stream",
          "x-seen-forwarded-for": String(req.headers["x-forwarded-for"]),
          "x-replica": replica,
        });
        res.write("event: connected\ndata: {}\n\n");
        if (state.dieInStream) setImmediate(() => res.socket?.destroy());
        else if (state.endStreams) res.end();
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(seen));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    state,
    received,
    /** Requests still open on this side (streams held or running). */
    get open() {
      return open.size;
    },
    /** `/ready` probes answered so far. */
    get probes() {
      return probes;
    },
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Resolves when the next request (not a probe) reaches the service. */
    nextRequest: () => new Promise<void>((resolve) => (arrived = resolve)),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type StandIn = Awaited<ReturnType<typeof standIn>>;
