import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
  /** The status the receiver answered, or null when it never answered. */
  status: number | null;
}

/** Decides the answer for one request; return null to hold it unanswered. */
export type Responder = (request: Omit<ReceivedRequest, "status">, countForPath: number) => number | null;

/** A real HTTP target on localhost (port 0) that records what it receives and answers as told. */
export async function startReceiver(respond: Responder = () => 200) {
  const received: ReceivedRequest[] = [];
  const held = new Set<ServerResponse>();
  const counts = new Map<string, number>();
  let responder = respond;
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      const path = req.url ?? "/";
      const count = (counts.get(path) ?? 0) + 1;
      counts.set(path, count);
      const entry: ReceivedRequest = { path, headers: req.headers, body, status: null };
      received.push(entry);
      const status = responder(entry, count);
      if (status === null) {
        held.add(res);
        return;
      }
      entry.status = status;
      res.statusCode = status;
      res.end(status >= 400 ? "receiver says no" : "ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    on: (path: string) => received.filter((r) => r.path === path),
    /** Requests on a path the receiver answered with 2xx. */
    answered: (path: string) => received.filter((r) => r.path === path && r.status !== null && r.status < 300),
    respondWith(next: Responder) {
      responder = next;
    },
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A localhost port nothing listens on: a target that is down. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
