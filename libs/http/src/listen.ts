import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";

export interface RunningServer {
  server: Server;
  port: number;
  url: string;
  close(): Promise<void>;
}

/** Listens (port 0 picks a free one) and closes gracefully, ending idle keep-alive sockets. */
export function listen(app: Express, port: number, host = "0.0.0.0"): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    server.once("error", reject);
    server.once("listening", () => {
      const actual = (server.address() as AddressInfo).port;
      resolve({
        server,
        port: actual,
        url: `http://127.0.0.1:${actual}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeIdleConnections();
            // Long-lived streams (SSE) would hold close() forever; give them a moment, then cut.
            setTimeout(() => server.closeAllConnections(), 2000).unref();
          }),
      });
    });
  });
}
