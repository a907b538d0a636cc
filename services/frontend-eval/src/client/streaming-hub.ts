import type { Request, Response } from "express";
import type { TokenGrant } from "@vexil/auth";
import type { DeltaEvent } from "@vexil/contracts";
import { ServiceUnavailable, TooManyRequests } from "@vexil/errors";
import { openEventStream } from "@vexil/http";
import type { EnvironmentSnapshot } from "../snapshots/environment-snapshot.js";
import { eventsInScope, inScope, scopeKey, type FeatureScope } from "../snapshots/scope.js";

interface Connection {
  res: Response;
  scope: FeatureScope;
  scopeKey: string;
  /** The token the stream was opened with, as it was then. */
  grant: TokenGrant;
  grantJson: string;
  expiry: NodeJS.Timeout | undefined;
}

/** What a refused stream is told to wait before trying again. */
const retryAfterSeconds = 5;

/** The longest delay setTimeout takes; a later expiry is checked again when that one fires. */
const maxTimerMs = 2 ** 31 - 1;

/** `{"events":[hydration]}` spliced from the stored JSON texts of the flags in scope. */
export function hydrationJson(snapshot: EnvironmentSnapshot, scope: FeatureScope): string {
  const features: string[] = [];
  for (const [name, json] of snapshot.featureJson) {
    if (inScope(scope, name, snapshot.features.get(name)?.project)) features.push(json);
  }
  return `{"events":[{"eventId":${snapshot.revision},"type":"hydration","features":[${features.join(",")}],"segments":${snapshot.segmentsJson}}]}`;
}

function sseMessage(id: number, event: string, data: string): string {
  return `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`;
}

/**
 * Server-sent events to the SDKs in streaming mode, as Unleash Enterprise sends them: on connect
 * `unleash-connected` with a hydration (or, resuming from a known `Last-Event-ID`, only the
 * missed changes as `unleash-updated`), then `unleash-updated` for every change. Each message is
 * serialised once per scope and written straight to the socket.
 *
 * A stream lives only as long as its token: revoking the token, changing its scope or letting it
 * expire ends the stream, and the SDK's reconnect is refused (401).
 *
 * Streams are bounded, in total and per token, so that no token holder can grow the process
 * without limit: past a bound a new stream is refused, 429 (that token's) or 503 (all), with
 * `Retry-After`; the streams open are untouched.
 */
export class StreamingHub {
  private readonly byEnvironment = new Map<string, Set<Connection>>();
  private readonly keepAlive: NodeJS.Timeout;
  private open = 0;
  private readonly perToken = new Map<string, number>();

  constructor(
    private readonly options: {
      /** Heartbeat period: SDKs drop a stream silent for 60 s, and a dead peer is found on write. */
      keepAliveMs?: number;
      /** Reconnect delay SDKs start from after the stream ends (the SSE `retry` field). */
      reconnectMs?: number;
      now?: () => number;
      /** Streams open at most, in all. */
      maxStreams?: number;
      /** Streams open at most per token. */
      maxStreamsPerToken?: number;
    } = {},
  ) {
    this.keepAlive = setInterval(() => this.broadcastComment(), options.keepAliveMs ?? 15_000);
    this.keepAlive.unref();
  }

  get size(): number {
    return this.open;
  }

  connect(
    req: Request,
    res: Response,
    {
      snapshot,
      scope,
      missed,
      grant,
    }: { snapshot: EnvironmentSnapshot; scope: FeatureScope; missed: DeltaEvent[] | undefined; grant: TokenGrant },
  ): void {
    const { maxStreams = 20_000, maxStreamsPerToken = 10_000 } = this.options;
    const tokenStreams = this.perToken.get(grant.digest) ?? 0;
    if (tokenStreams >= maxStreamsPerToken) {
      throw new TooManyRequests(
        `This API token has ${tokenStreams} streams open, the most one token may have; close one first`,
        retryAfterSeconds,
      );
    }
    if (this.open >= maxStreams) {
      throw new ServiceUnavailable(`This process has ${this.open} streams open, the most it takes; try again later`, retryAfterSeconds);
    }
    openEventStream(req, res, this.options.reconnectMs ?? 1000);
    if (missed === undefined) {
      res.write(sseMessage(snapshot.revision, "unleash-connected", hydrationJson(snapshot, scope)));
    } else {
      const events = eventsInScope(scope, missed);
      if (events.length > 0) res.write(sseMessage(snapshot.revision, "unleash-updated", JSON.stringify({ events })));
      else res.write(": up to date\n\n");
    }

    const connection: Connection = { res, scope, scopeKey: scopeKey(scope), grant, grantJson: JSON.stringify(grant), expiry: undefined };
    let set = this.byEnvironment.get(snapshot.environment);
    if (!set) this.byEnvironment.set(snapshot.environment, (set = new Set()));
    set.add(connection);
    this.open++;
    this.perToken.set(grant.digest, tokenStreams + 1);
    this.scheduleExpiry(connection);
    res.on("close", () => {
      clearTimeout(connection.expiry);
      set.delete(connection);
      this.open--;
      const left = (this.perToken.get(grant.digest) ?? 1) - 1;
      if (left > 0) this.perToken.set(grant.digest, left);
      else this.perToken.delete(grant.digest);
    });
  }

  /**
   * Ends every stream whose token is gone or no longer the one it was opened with (scope or
   * expiry changed); `current` gives the grant held now for a digest.
   */
  revalidate(current: (digest: string) => TokenGrant | undefined): void {
    for (const set of this.byEnvironment.values()) {
      for (const connection of set) {
        const now = current(connection.grant.digest);
        if (!now || JSON.stringify(now) !== connection.grantJson) this.end(connection);
      }
    }
  }

  private scheduleExpiry(connection: Connection): void {
    const { expiresAt } = connection.grant;
    if (!expiresAt) return;
    const left = new Date(expiresAt).getTime() - (this.options.now ?? Date.now)();
    if (left <= 0) return this.end(connection);
    connection.expiry = setTimeout(() => this.scheduleExpiry(connection), Math.min(left, maxTimerMs));
    connection.expiry.unref();
  }

  private end(connection: Connection): void {
    clearTimeout(connection.expiry);
    for (const set of this.byEnvironment.values()) set.delete(connection);
    connection.res.end();
  }

  /** Pushes a new snapshot's changes to every stream of its environment. */
  publish(snapshot: EnvironmentSnapshot, changes: readonly DeltaEvent[]): void {
    const connections = this.byEnvironment.get(snapshot.environment);
    if (!connections || connections.size === 0 || changes.length === 0) return;
    const messages = new Map<string, string | null>();
    for (const connection of connections) {
      let message = messages.get(connection.scopeKey);
      if (message === undefined) {
        const events = eventsInScope(connection.scope, changes);
        message = events.length > 0 ? sseMessage(snapshot.revision, "unleash-updated", JSON.stringify({ events })) : null;
        messages.set(connection.scopeKey, message);
      }
      if (message) connection.res.write(message);
    }
  }

  close(): void {
    clearInterval(this.keepAlive);
    for (const set of this.byEnvironment.values()) {
      for (const connection of set) {
        clearTimeout(connection.expiry);
        connection.res.end();
      }
      set.clear();
    }
  }

  private broadcastComment(): void {
    for (const set of this.byEnvironment.values()) for (const { res } of set) res.write(": keep-alive\n\n");
  }
}
