import { Agent, type ClientRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { Socket } from "node:net";
import express, { type Router } from "express";
import { createProxyMiddleware } from "http-proxy-middleware";
import { NotReady } from "@vexil/errors";
import type { Logger } from "@vexil/logger";
import type { Replica, ReplicaPool } from "./replica-pool.js";
import { publicRoutes, type RoutedService } from "./routes.js";

/** Each surface's addresses: one per replica. */
export type ServiceAddresses = Record<RoutedService, string[]>;
export type ServicePools = Record<RoutedService, ReplicaPool>;

/** How long a streaming request waits for a replica of its service to come back before it gets 503. */
const streamHoldMs = 30_000;
const streamRetryMs = 200;
const forwardedHeaders = ["x-forwarded-for", "x-forwarded-port", "x-forwarded-proto", "x-forwarded-host"] as const;
/** Errors that say the replica is not there (refused, reset, gone): the request may go to another. */
const unreachableCodes = new Set(["ECONNREFUSED", "ECONNRESET", "EHOSTUNREACH", "ENETUNREACH", "EPIPE", "ETIMEDOUT"]);

function isStream(req: IncomingMessage): boolean {
  return req.method === "GET" && (req.url ?? "").split("?")[0] === "/api/client/streaming";
}

/** Sending it again cannot change anything twice: GET and HEAD. */
function isIdempotent(req: IncomingMessage): boolean {
  return req.method === "GET" || req.method === "HEAD";
}

/** Where one request stands: the replicas tried, the one trying now, the client's own forwarded headers. */
interface Attempt {
  tried: Set<Replica>;
  current: Replica;
  firstTriedAt: number;
  clientForwarded: Array<string | string[] | undefined>;
  /** The try now went out on a kept-alive connection, which the replica may have closed as it was reused. */
  reusedConnection: boolean;
  /** A try on a kept-alive connection failed already: the next failure counts against the replica. */
  retriedStale: boolean;
}

/**
 * Cluster mode: forwards each public prefix to a replica of the service that owns it, bodies
 * untouched, balanced round-robin over the replicas ready (see `ReplicaPool`).
 *
 * - A replica that cannot be reached is taken out, and a GET or HEAD that found it so is sent to
 *   another replica, as long as nothing was answered yet; any other request answers 503 in the
 *   error shape (it may have reached the replica). With no replica left: 503 `NotReady`.
 * - The upstream request lives exactly as long as the client's: a client that goes away at any
 *   moment (before the replica answered, mid-stream) ends it, so nothing is left open upstream.
 * - Upstream connections are kept alive between requests (one agent per surface): a poll does not
 *   pay a TCP connect each time, nor wait behind thousands of stream connects in the replica's
 *   accept queue. A request whose kept-alive connection turns out closed goes again once on a new
 *   connection, without counting against the replica. A stream has a connection of its own, closed
 *   with it (`Connection: close`), so that a stream the gateway cuts ends cleanly for the SDK.
 * - Streams follow their replica's life: when it dies mid-response, or stops being ready, the
 *   client's stream is cut at once (an SDK then reconnects, and lands on a live replica), and a
 *   stream request arriving while no replica can take it waits for one (up to 30 s) instead of
 *   failing, so the SDK's reconnect does not back off.
 */
export function createProxyRouter(pools: ServicePools, logger: Logger): Router {
  const router = express.Router();
  // Counted per public prefix: the service behind counts the route templates.
  router.use((req, res, next) => {
    const route = publicRoutes.find(({ prefix }) => req.path === prefix || req.path.startsWith(`${prefix}/`));
    if (route) res.locals.metricsRoute = `${route.prefix}/*`;
    next();
  });
  const attempts = new WeakMap<IncomingMessage, Attempt>();
  const clientGone = (req: IncomingMessage, res: ServerResponse) => req.socket.destroyed || res.destroyed;

  for (const service of new Set(publicRoutes.map((r) => r.service))) {
    const pool = pools[service];
    const agent = new Agent({ keepAlive: true, maxFreeSockets: 256 });
    const prefixes = publicRoutes.filter((r) => r.service === service).map((r) => r.prefix);
    const owns = (path: string) => prefixes.some((p) => path === p || path.startsWith(`${p}/`));

    /** Sends the request to the next replica, or answers 503 (a stream waits) when none is left. */
    const send = (req: IncomingMessage, res: ServerResponse, attempt: Attempt | undefined) => {
      const tried = attempt?.tried ?? new Set<Replica>();
      const replica = pool.pick(tried);
      if (!replica) return void unavailable(req, res, attempt);
      tried.add(replica);
      const next: Attempt = attempt ?? {
        tried,
        current: replica,
        firstTriedAt: Date.now(),
        clientForwarded: forwardedHeaders.map((h) => req.headers[h]),
        reusedConnection: false,
        retriedStale: false,
      };
      next.current = replica;
      if (attempt) restoreForwarded(req, attempt.clientForwarded);
      attempts.set(req, next);
      void (isStream(req) ? streamProxy : proxy)(req as express.Request, res as express.Response, () => res.destroy());
    };

    const unavailable = (req: IncomingMessage, res: ServerResponse, attempt: Attempt | undefined) => {
      if (isStream(req) && attempt && Date.now() - attempt.firstTriedAt < streamHoldMs) {
        // Every replica is away: wait for one to be back, trying them all again.
        setTimeout(() => {
          if (clientGone(req, res)) return;
          attempt.tried.clear();
          send(req, res, attempt);
        }, streamRetryMs);
        return;
      }
      const error = new NotReady(`The ${service} service is not reachable`);
      res.writeHead(error.status, { "content-type": "application/json" });
      res.end(JSON.stringify(error.toBody()));
    };

    const proxyOptions: Parameters<typeof createProxyMiddleware<IncomingMessage, ServerResponse>>[0] = {
      router: (req) => attempts.get(req)!.current.url,
      // Only for the balancer's own `send`: paths are checked before.
      pathFilter: () => true,
      xfwd: true,
      // SSE streams must not be buffered or cut by the proxy.
      proxyTimeout: 0,
      on: {
        proxyReq: (proxyReq, req, res) => {
          const attempt = attempts.get(req);
          // The agent hands out a kept-alive connection synchronously, as the request is made.
          if (attempt) attempt.reusedConnection = proxyReq.reusedSocket;
          endWithClient(proxyReq, req, res as ServerResponse);
        },
        proxyRes: (proxyRes, req, res) => {
          proxyRes.once("close", () => {
            if (!proxyRes.complete) res.destroy();
          });
          const replica = attempts.get(req)?.current;
          if (replica && isStream(req) && proxyRes.statusCode === 200) {
            replica.streams.add(res);
            res.once("close", () => replica.streams.delete(res));
            // Taken out meanwhile (its probe failed while this request was on its way): hand over now.
            if (!replica.ready && pool.readyCount > 0) res.destroy();
          }
        },
        error: (err, req, res) => {
          if (res instanceof Socket) return void res.destroy();
          if (res.headersSent || clientGone(req, res)) return void res.destroy();
          const attempt = attempts.get(req);
          const code = (err as NodeJS.ErrnoException).code ?? "";
          if (attempt && unreachableCodes.has(code)) {
            if (attempt.reusedConnection && !attempt.retriedStale && isIdempotent(req)) {
              // The replica closed an idle connection as it was being reused: that says nothing of the replica.
              attempt.retriedStale = true;
              attempt.tried.delete(attempt.current);
              return send(req, res, attempt);
            }
            pool.unreachable(attempt.current, code);
            // Nothing was answered yet: another replica may take a request that cannot change anything twice.
            if (isIdempotent(req)) return send(req, res, attempt);
          }
          logger.warn({ err, service, replica: attempt?.current.url }, "upstream unavailable");
          const error = new NotReady(`The ${service} service is not reachable`);
          res.writeHead(error.status, { "content-type": "application/json" });
          res.end(JSON.stringify(error.toBody()));
        },
      },
    };
    const proxy = createProxyMiddleware({ ...proxyOptions, agent });
    // No agent: http-proxy then asks for `Connection: close`, and passes it on to the client.
    const streamProxy = createProxyMiddleware(proxyOptions);
    router.use((req, res, next) => (owns(req.path) ? send(req, res, undefined) : next()));
  }
  return router;
}

/**
 * Ends the upstream request whenever the client's side closes before the answer is complete: before
 * the replica answered (nothing else would end it: a GET has no body to abort), or mid-stream.
 */
function endWithClient(proxyReq: ClientRequest, req: IncomingMessage, res: ServerResponse): void {
  let answered: IncomingMessage | undefined;
  proxyReq.once("response", (proxyRes: IncomingMessage) => (answered = proxyRes));
  const end = () => {
    if (!answered?.complete) proxyReq.destroy();
  };
  if (req.socket.destroyed || res.destroyed) return end();
  res.once("close", end);
}

/** The proxy appends to the forwarded headers on each try; another try starts again from the client's. */
function restoreForwarded(req: IncomingMessage, values: Array<string | string[] | undefined>): void {
  forwardedHeaders.forEach((h, i) => {
    const value = values[i];
    if (value === undefined) delete req.headers[h];
    else req.headers[h] = value;
  });
}
