import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { HeadersTooLarge, RequestTimeout, UriTooLong, ValidationError, type VexilError } from "@vexil/errors";
import { maxUrlLength } from "./app.js";

export interface RunningServer {
  server: Server;
  port: number;
  url: string;
  close(): Promise<void>;
}

/** Listens (port 0 picks a free one) and closes gracefully, ending idle keep-alive sockets. */
export function listen(app: RequestListener, port: number, host = "0.0.0.0"): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = createServer(app).listen(port, host);
    server.on("clientError", answerClientError);
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

/**
 * Requests node refuses before express sees them (headers or URL over the limit, a malformed
 * request, a request that timed out) get the spec's error body too, not a bare status line.
 */
function answerClientError(err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket): void {
  if (
    !socket.writable ||
    (err.code !== "HPE_HEADER_OVERFLOW" && err.code !== "ERR_HTTP_REQUEST_TIMEOUT" && !err.code?.startsWith("HPE_"))
  ) {
    socket.destroy();
    return;
  }
  let error: VexilError;
  if (err.code === "HPE_HEADER_OVERFLOW") {
    const lineEnd = err.rawPacket?.indexOf("\r\n") ?? -1;
    error =
      lineEnd === -1 || lineEnd > maxUrlLength
        ? new UriTooLong(`The URL is longer than ${maxUrlLength} characters`)
        : new HeadersTooLarge("The request headers are larger than accepted");
  } else if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    error = new RequestTimeout("The request did not arrive in time");
  } else {
    error = new ValidationError("The request is not valid HTTP");
  }
  const body = JSON.stringify(error.toBody());
  const reason = { 400: "Bad Request", 408: "Request Timeout", 414: "URI Too Long", 431: "Request Header Fields Too Large" }[error.status];
  socket.end(
    `HTTP/1.1 ${error.status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
