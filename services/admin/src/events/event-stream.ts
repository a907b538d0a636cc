import express, { type Request, type Response, type Router } from "express";
import { adminContract, eventStreamQuerySchema } from "@vexil/contracts";
import { NotFoundError, ValidationError } from "@vexil/errors";
import { openEventStream } from "@vexil/http";
import type { AccessService } from "../access/access-service.js";
import { toEventEntry } from "./event-routes.js";
import type { EventDocument } from "./event-store.js";

/** Where the stream's events come from: commits as they happen, and the log to resume from. */
export interface EventStreamSource {
  /** Calls `listener` with the events of each commit; returns the way to stop. */
  onCommitted(listener: (events: EventDocument[]) => void): () => void;
  /** Up to `limit` events after the event `after`, oldest first. */
  since(after: number, limit: number): Promise<EventDocument[]>;
  /** Id of the newest event; 0 when there is none. */
  latestId(): Promise<number>;
}

/** Whether the caller of `req` may see what happens in a project (private projects: members only). */
export type ProjectVisibility = (req: Request, project: string) => Promise<boolean>;

interface Connection {
  req: Request;
  res: Response;
  /** Only this project's events (and none of other projects), when the caller asked for one. */
  project: string | undefined;
  /** Id of the newest event this stream has passed on or skipped: a replay and live commits never repeat one. */
  lastId: number;
  /** Writes in commit order, although deciding what each caller may see is asynchronous. */
  queue: Promise<void>;
}

export interface EventStreamOptions {
  /** Heartbeat period: proxies and browsers drop connections that stay silent, and a dead peer is found on write. */
  keepAliveMs?: number;
  /** Reconnect delay the browser starts from after the stream ends (the SSE `retry` field). */
  reconnectMs?: number;
  /** A reconnect that missed more events than this is told to reload instead of getting them all. */
  maxReplay?: number;
  /**
   * Whether the credential a stream was opened with (a session, a token) still signs its caller in.
   * Checked again every `recheckMs`: a stream ends soon after its session or token does.
   */
  stillSignedIn?: (req: Request) => Promise<boolean>;
  recheckMs?: number;
}

function message(event: string | undefined, data: unknown, id?: number): string {
  return `${id === undefined ? "" : `id: ${id}\n`}${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;
}

/**
 * Server-sent events of the event log for the web UI and scripts: each committed domain event
 * the caller may read, as the event log shows it, within moments of the commit. A reconnect with
 * `Last-Event-ID` gets the events it missed from the log (or `reset` when they are too many).
 *
 * Messages: `connected` first (`{latestEventId, resumed}`), then one unnamed message per event
 * (`id` is the event id), `reset` when a resume was not possible, `: keep-alive` comments, and
 * `ended` (`{message}`) just before the server closes a stream whose session or token has ended.
 */
export class EventStreamHub {
  private readonly connections = new Set<Connection>();
  private keepAlive: NodeJS.Timeout | undefined;
  private recheck: NodeJS.Timeout | undefined;
  private stopListening: (() => void) | undefined;

  constructor(
    private readonly source: EventStreamSource,
    private readonly maySee: ProjectVisibility,
    private readonly options: EventStreamOptions = {},
  ) {}

  get size(): number {
    return this.connections.size;
  }

  start(): void {
    if (this.stopListening) return;
    this.stopListening = this.source.onCommitted((events) => this.publish(events));
    this.keepAlive = setInterval(() => {
      for (const { res } of this.connections) res.write(": keep-alive\n\n");
    }, this.options.keepAliveMs ?? 15_000);
    this.keepAlive.unref();
    const { stillSignedIn } = this.options;
    if (stillSignedIn) {
      this.recheck = setInterval(() => {
        for (const connection of this.connections) this.enqueue(connection, () => this.endIfSignedOut(connection, stillSignedIn));
      }, this.options.recheckMs ?? 2_000);
      this.recheck.unref();
    }
  }

  /** Stops listening and ends every open stream; browsers reconnect to whichever process serves next. */
  stop(): void {
    this.stopListening?.();
    this.stopListening = undefined;
    clearInterval(this.keepAlive);
    clearInterval(this.recheck);
    for (const connection of this.connections) connection.res.end();
    this.connections.clear();
  }

  connect(req: Request, res: Response, { lastEventId, project }: { lastEventId: number | undefined; project: string | undefined }): void {
    openEventStream(req, res, this.options.reconnectMs ?? 1000);
    const connection: Connection = { req, res, project, lastId: Number.MAX_SAFE_INTEGER, queue: Promise.resolve() };
    // Listening before reading the log: a commit in between waits in the queue, then is skipped or sent once.
    this.connections.add(connection);
    res.on("close", () => this.connections.delete(connection));
    this.enqueue(connection, () => this.open(connection, lastEventId));
  }

  private async open(connection: Connection, lastEventId: number | undefined): Promise<void> {
    const latest = await this.source.latestId();
    const maxReplay = this.options.maxReplay ?? 500;
    const missed = lastEventId === undefined || lastEventId > latest ? undefined : await this.source.since(lastEventId, maxReplay + 1);
    if (missed === undefined || missed.length > maxReplay) {
      connection.lastId = latest;
      const resumeFailed = lastEventId !== undefined;
      connection.res.write(message("connected", { latestEventId: latest, resumed: false }, latest));
      if (resumeFailed) connection.res.write(message("reset", { latestEventId: latest }));
      return;
    }
    connection.lastId = lastEventId!;
    connection.res.write(message("connected", { latestEventId: latest, resumed: true }));
    await this.send(connection, missed);
  }

  /** Ends the stream, saying why, once its caller is signed out; the browser's reconnect then gets 401. */
  private async endIfSignedOut(connection: Connection, stillSignedIn: (req: Request) => Promise<boolean>): Promise<void> {
    if (!this.connections.has(connection) || (await stillSignedIn(connection.req).catch(() => false))) return;
    this.connections.delete(connection);
    connection.res.end(message("ended", { message: "The session or token this stream was opened with has ended" }));
  }

  private publish(events: EventDocument[]): void {
    for (const connection of this.connections) this.enqueue(connection, () => this.send(connection, events));
  }

  private enqueue(connection: Connection, work: () => Promise<void>): void {
    connection.queue = connection.queue.then(work).catch(() => {
      // The log could not be read or the caller's access checked: end the stream, the browser reconnects.
      this.connections.delete(connection);
      connection.res.end();
    });
  }

  private async send(connection: Connection, events: EventDocument[]): Promise<void> {
    const visible = new Map<string, boolean>();
    let out = "";
    for (const doc of events) {
      if (doc._id <= connection.lastId) continue;
      connection.lastId = doc._id;
      if (connection.project !== undefined && doc.project !== connection.project) continue;
      if (doc.project !== null) {
        let may = visible.get(doc.project);
        if (may === undefined) visible.set(doc.project, (may = await this.maySee(connection.req, doc.project)));
        if (!may) continue;
      }
      out += message(undefined, toEventEntry(doc), doc._id);
    }
    if (out && this.connections.has(connection)) connection.res.write(out);
  }
}

/** The `Last-Event-ID` a reconnecting browser sends: an event id, or nothing usable. */
export function lastEventIdFrom(value: string | undefined): number | undefined {
  return value && /^\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : undefined;
}

/**
 * `GET /api/admin/event-stream`, written directly on express (a JSON contract handler cannot
 * stream); the contract still describes it and validates its query.
 */
export function eventStreamRoutes({
  hub,
  access,
  projects,
  maySee,
}: {
  hub: EventStreamHub;
  access: AccessService;
  /** Throws NotFoundError for a project that does not exist. */
  projects: { get(project: string): Promise<unknown> };
  maySee: ProjectVisibility;
}): Router {
  const router = express.Router();
  router.get(adminContract.events.stream.path, async (req, res, next) => {
    try {
      const query = eventStreamQuerySchema.safeParse(req.query);
      if (!query.success) {
        const details = query.error.issues.map((issue) => ({ path: ["query", ...issue.path].join("."), message: issue.message }));
        throw new ValidationError(`Invalid ${details[0]?.path}: ${details[0]?.message}`, details);
      }
      const { project } = query.data;
      // A stream is served outside ts-rest: its declared permission is checked here.
      access.assert(req, adminContract.events.stream.metadata.access.permission, { project });
      if (project !== undefined) {
        await projects.get(project);
        // A private project is hidden from non-members as if it did not exist.
        if (!(await maySee(req, project))) throw new NotFoundError(`Could not find project ${project}`);
      }
      hub.connect(req, res, { lastEventId: lastEventIdFrom(req.get("last-event-id")), project });
    } catch (err) {
      next(err);
    }
  });
  return router;
}
