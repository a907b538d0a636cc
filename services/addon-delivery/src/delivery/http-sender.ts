import http from "node:http";
import https from "node:https";
import { assertLiteralHostAllowed, guardedLookup, type Resolver, TargetRefused } from "@vexil/outbound";
import type { OutboundRequest } from "../providers/formatters.js";

export interface OutboundResult {
  statusCode: number;
  /** The start of the answer, for the delivery log. */
  body: string;
}

/** Sends one POST; rejects on network errors, timeouts and refused targets, resolves with any status. */
export type Sender = (request: OutboundRequest) => Promise<OutboundResult>;

const maxLoggedBody = 500;

export function createHttpSender({
  allowPrivate,
  timeoutMs,
  resolve,
}: {
  allowPrivate: boolean;
  timeoutMs: number;
  resolve?: Resolver;
}): Sender {
  const lookup = guardedLookup({ allowPrivate, resolve });
  return (request) =>
    new Promise<OutboundResult>((resolvePromise, reject) => {
      let url: URL;
      try {
        url = new URL(request.url);
        if (url.protocol !== "http:" && url.protocol !== "https:") throw new TargetRefused(`${url.protocol} URLs are not delivered to`);
        assertLiteralHostAllowed(url, allowPrivate);
      } catch (err) {
        return reject(err instanceof TargetRefused ? err : new TargetRefused(`invalid target URL: ${(err as Error).message}`));
      }
      const client = url.protocol === "https:" ? https : http;
      const body = Buffer.from(request.body);
      const req = client.request(
        url,
        {
          method: "POST",
          headers: { ...request.headers, "content-length": String(body.length) },
          lookup,
          // A fresh connection per request: a pooled socket would skip the address check above.
          agent: false,
          // Redirects are not followed (node never does), so a public URL cannot bounce to a private one.
          signal: AbortSignal.timeout(timeoutMs),
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (chunk: Buffer) => {
            if (size < maxLoggedBody) chunks.push(chunk);
            size += chunk.length;
          });
          res.on("end", () =>
            resolvePromise({ statusCode: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8").slice(0, maxLoggedBody) }),
          );
          res.on("error", reject);
        },
      );
      req.on("error", (err) => {
        if (err.name === "AbortError" || err.name === "TimeoutError") reject(new Error(`no answer within ${timeoutMs} ms`));
        else reject(err);
      });
      req.end(body);
    });
}
