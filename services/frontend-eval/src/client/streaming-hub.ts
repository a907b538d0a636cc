import type { Request, Response } from "express";
import type { TokenGrant } from "@vexil/auth";
import type { DeltaEvent } from "@vexil/contracts";
import { ServiceUnavailable, TooManyRequests } from "@vexil/errors";
import { openEventStream } from "@vexil/http";
import type { Logger } from "@vexil/logger";
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
  /**
   * Bytes this stream may hold unsent before it counts as stalled: its first message (shared, and
   * as large as the flag set) plus the bound on changes, until the first message is out.
   */
  allowance: number;
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

/**
 * The delta API's hydration for a scope, built once per snapshot: every SDK polling with the same
 * token shares the text.
 */
export function sharedHydrationJson(snapshot: EnvironmentSnapshot, scope: FeatureScope, key = scopeKey(scope)): string {
  const cacheKey = `hydration:${key}`;
  const kept = snapshot.responses.get(cacheKey);
  if (typeof kept === "string") return kept;
  const json = hydrationJson(snapshot, scope);
  snapshot.keep(cacheKey, json);
  return json;
}

function sseMessage(id: number, event: string, data: string): Buffer {
  return Buffer.from(`id: ${id}\nevent: ${event}\ndata: ${data}\n\n`);
}

/**
 * A stream's first message for a scope, encoded once per snapshot: ten thousand streams opened on
 * one token write the same bytes, held once however slowly each socket drains.
 */
function connectedMessage(snapshot: EnvironmentSnapshot, scope: FeatureScope, key: string): Buffer {
  const cacheKey = `stream-connected:${key}`;
  const kept = snapshot.responses.get(cacheKey);
  if (Buffer.isBuffer(kept)) return kept;
  const message = sseMessage(snapshot.revision, "unleash-connected", sharedHydrationJson(snapshot, scope, key));
  snapshot.keep(cacheKey, message);
  return message;
}

const keepAliveComment = Buffer.from(": keep-alive\n\n");
const upToDateComment = Buffer.from(": up to date\n\n");

/** What a stream starts from, read when it is admitted (the snapshot may have moved on while it waited). */
export type StreamStart = () => { snapshot: EnvironmentSnapshot; missed: DeltaEvent[] | undefined };

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
 *
 * New streams are admitted at a bounded rate (a token bucket): a burst of thousands waits its turn,
 * unanswered, instead of taking the event loop from the polls. A stream starts from the snapshot
 * current when it is admitted, and from bytes shared by every stream of its scope.
 *
 * A stream whose client stops reading is closed once more than `maxUnsentBytes` of changes wait
 * for its socket: the process never holds an unbounded backlog for a stalled peer. Its SDK
 * reconnects with `Last-Event-ID` and gets what it missed.
 */
export class StreamingHub {
  private readonly byEnvironment = new Map<string, Set<Connection>>();
  private readonly keepAlive: NodeJS.Timeout;
  private open = 0;
  private readonly perToken = new Map<string, number>();
  /** Streams waiting to be admitted, oldest first; a stream whose client left is skipped. */
  private readonly waiting: Array<{ connection: Connection; start: () => void }> = [];
  private admissions: number;
  private refilledAt: number;
  private admitTimer: NodeJS.Timeout | undefined;
  private stalledClosed = 0;

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
      /** New streams admitted per second at most; a burst of a tenth of a second's worth goes at once. */
      admitPerSecond?: number;
      /** Changes a stream may have waiting unsent (bytes, past its first message) before it is closed as stalled. */
      maxUnsentBytes?: number;
      logger?: Logger;
    } = {},
  ) {
    this.keepAlive = setInterval(() => this.broadcastComment(), options.keepAliveMs ?? 15_000);
    this.keepAlive.unref();
    this.admissions = this.burst;
    this.refilledAt = this.now();
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private get admitPerSecond(): number {
    return this.options.admitPerSecond ?? 1_000;
  }

  private get burst(): number {
    return Math.max(1, Math.floor(this.admitPerSecond / 10));
  }

  get size(): number {
    return this.open;
  }

  /** Streams closed so far because their client stopped reading. */
  get stalled(): number {
    return this.stalledClosed;
  }

  private get maxUnsentBytes(): number {
    return this.options.maxUnsentBytes ?? 1024 * 1024;
  }

  connect(
    req: Request,
    res: Response,
    {
      environment,
      scope,
      grant,
      start,
      fail,
    }: {
      environment: string;
      scope: FeatureScope;
      grant: TokenGrant;
      start: StreamStart;
      /** Answers the request when it cannot start once admitted (its environment is gone). */
      fail: (err: unknown) => void;
    },
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
    // Counted from the request on, admitted or still waiting: the bounds hold for the queue too.
    const connection: Connection = {
      res,
      scope,
      scopeKey: scopeKey(scope),
      grant,
      grantJson: JSON.stringify(grant),
      expiry: undefined,
      allowance: this.maxUnsentBytes,
    };
    let set = this.byEnvironment.get(environment);
    if (!set) this.byEnvironment.set(environment, (set = new Set()));
    const streams = set;
    this.open++;
    this.perToken.set(grant.digest, tokenStreams + 1);
    res.on("close", () => {
      clearTimeout(connection.expiry);
      streams.delete(connection);
      this.open--;
      const left = (this.perToken.get(grant.digest) ?? 1) - 1;
      if (left > 0) this.perToken.set(grant.digest, left);
      else this.perToken.delete(grant.digest);
    });
    this.admit(connection, () => {
      let begin: ReturnType<StreamStart>;
      try {
        begin = start();
      } catch (err) {
        fail(err);
        return;
      }
      const { snapshot, missed } = begin;
      openEventStream(req, res, this.options.reconnectMs ?? 1000);
      let first: Buffer;
      if (missed === undefined) {
        first = connectedMessage(snapshot, scope, connection.scopeKey);
      } else {
        const events = eventsInScope(scope, missed);
        first = events.length > 0 ? sseMessage(snapshot.revision, "unleash-updated", JSON.stringify({ events })) : upToDateComment;
      }
      if (!res.write(first)) {
        connection.allowance += first.length;
        res.once("drain", () => (connection.allowance = this.maxUnsentBytes));
      }
      streams.add(connection);
      this.scheduleExpiry(connection);
    });
  }

  /** Runs `start` now if the bucket holds an admission and nobody waits before it, else when its turn comes. */
  private admit(connection: Connection, start: () => void): void {
    this.refill();
    if (this.waiting.length === 0 && this.admissions >= 1) {
      this.admissions--;
      start();
      return;
    }
    this.waiting.push({ connection, start });
    this.scheduleAdmissions();
  }

  private refill(): void {
    const now = this.now();
    this.admissions = Math.min(this.burst, this.admissions + ((now - this.refilledAt) * this.admitPerSecond) / 1000);
    this.refilledAt = now;
  }

  private scheduleAdmissions(): void {
    if (this.admitTimer) return;
    const wait = Math.max(1, Math.ceil(((1 - this.admissions) * 1000) / this.admitPerSecond));
    this.admitTimer = setTimeout(() => {
      this.admitTimer = undefined;
      this.refill();
      while (this.waiting.length > 0 && this.admissions >= 1) {
        const next = this.waiting.shift()!;
        // A client that left while waiting costs nothing more (its close already uncounted it).
        if (next.connection.res.destroyed || next.connection.res.writableEnded) continue;
        this.admissions--;
        next.start();
      }
      if (this.waiting.length > 0) this.scheduleAdmissions();
    }, wait);
    this.admitTimer.unref();
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
    // One still waiting has sent nothing yet: dropping it makes the SDK reconnect, and be refused.
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      const { connection } = this.waiting[i]!;
      const now = current(connection.grant.digest);
      if (!now || JSON.stringify(now) !== connection.grantJson) {
        this.waiting.splice(i, 1);
        connection.res.destroy();
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
    const messages = new Map<string, Buffer | null>();
    const stalled: Connection[] = [];
    for (const connection of connections) {
      let message = messages.get(connection.scopeKey);
      if (message === undefined) {
        const events = eventsInScope(connection.scope, changes);
        message = events.length > 0 ? sseMessage(snapshot.revision, "unleash-updated", JSON.stringify({ events })) : null;
        messages.set(connection.scopeKey, message);
      }
      if (message) this.send(connection, message, stalled);
    }
    this.closeStalled(stalled);
  }

  /** Writes `message` unless the stream already holds more unsent than it may: then it joins `stalled`. */
  private send(connection: Connection, message: Buffer, stalled: Connection[]): void {
    if (connection.res.writableLength > connection.allowance) stalled.push(connection);
    else connection.res.write(message);
  }

  private closeStalled(stalled: Connection[]): void {
    if (stalled.length === 0) return;
    for (const connection of stalled) {
      clearTimeout(connection.expiry);
      for (const set of this.byEnvironment.values()) set.delete(connection);
      // Nothing more can reach a peer that reads nothing: the socket goes, and with it what it held.
      connection.res.destroy();
    }
    this.stalledClosed += stalled.length;
    this.options.logger?.warn(
      { closed: stalled.length, closedSoFar: this.stalledClosed, maxUnsentBytes: this.maxUnsentBytes },
      "closed SDK streams whose clients stopped reading (more changes waiting unsent than allowed); their SDKs reconnect and resume from their last event",
    );
  }

  close(): void {
    clearInterval(this.keepAlive);
    clearTimeout(this.admitTimer);
    for (const { connection } of this.waiting.splice(0)) connection.res.destroy();
    for (const set of this.byEnvironment.values()) {
      for (const connection of set) {
        clearTimeout(connection.expiry);
        connection.res.end();
      }
      set.clear();
    }
  }

  private broadcastComment(): void {
    const stalled: Connection[] = [];
    for (const set of this.byEnvironment.values()) for (const connection of set) this.send(connection, keepAliveComment, stalled);
    this.closeStalled(stalled);
  }
}
