import type { Request, Response } from "express";
import type { DeltaEvent } from "@vexil/contracts";
import type { EnvironmentSnapshot } from "../snapshots/environment-snapshot.js";
import { eventsInScope, inScope, scopeKey, type FeatureScope } from "../snapshots/scope.js";

interface Connection {
  res: Response;
  scope: FeatureScope;
  scopeKey: string;
}

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
 */
export class StreamingHub {
  private readonly byEnvironment = new Map<string, Set<Connection>>();
  private readonly keepAlive: NodeJS.Timeout;

  constructor(keepAliveMs = 30_000) {
    // SDKs give up on a silent stream after 60 s; a comment line keeps idle streams open.
    this.keepAlive = setInterval(() => this.broadcastComment(), keepAliveMs);
    this.keepAlive.unref();
  }

  get size(): number {
    let total = 0;
    for (const set of this.byEnvironment.values()) total += set.size;
    return total;
  }

  connect(req: Request, res: Response, snapshot: EnvironmentSnapshot, scope: FeatureScope, missed: DeltaEvent[] | undefined): void {
    req.socket.setTimeout(0);
    req.socket.setNoDelay(true);
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
    if (missed === undefined) {
      res.write(sseMessage(snapshot.revision, "unleash-connected", hydrationJson(snapshot, scope)));
    } else {
      const events = eventsInScope(scope, missed);
      if (events.length > 0) res.write(sseMessage(snapshot.revision, "unleash-updated", JSON.stringify({ events })));
      else res.write(": up to date\n\n");
    }

    const connection: Connection = { res, scope, scopeKey: scopeKey(scope) };
    let set = this.byEnvironment.get(snapshot.environment);
    if (!set) this.byEnvironment.set(snapshot.environment, (set = new Set()));
    set.add(connection);
    res.on("close", () => set.delete(connection));
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
      for (const { res } of set) res.end();
      set.clear();
    }
  }

  private broadcastComment(): void {
    for (const set of this.byEnvironment.values()) for (const { res } of set) res.write(": keep-alive\n\n");
  }
}
