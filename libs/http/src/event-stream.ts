import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * Opens a server-sent event stream: no idle timeout, no buffering by proxies, and the delay a
 * client waits before reconnecting, so a stream ended by a restart or a deploy is picked up again.
 */
export function openEventStream(req: IncomingMessage, res: ServerResponse, reconnectMs: number): void {
  req.socket.setTimeout(0);
  req.socket.setNoDelay(true);
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  res.write(`retry: ${reconnectMs}\n\n`);
}
