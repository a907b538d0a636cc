import type { ServerResponse } from "node:http";
import type { Logger } from "@vexil/logger";
import type { RoutedService } from "./routes.js";

/** One process of a surface, as the gateway sees it. */
export interface Replica {
  url: string;
  /** Its last `/ready` said 200 and no request found it unreachable since. */
  ready: boolean;
  /** The SDK streams proxied to it now: closed when it goes away, so their SDKs reconnect to another. */
  readonly streams: Set<ServerResponse>;
  /** Probes in a row that got no answer in time. */
  slowProbes: number;
}

/** Probes in a row without an answer in time before a replica counts as gone (a busy machine answers late). */
const slowProbesTolerated = 3;

export interface ReplicaPoolOptions {
  /** How often each replica's `/ready` is asked. */
  probeEveryMs?: number;
  probeTimeoutMs?: number;
}

/**
 * The replicas of one surface: requests go round-robin to those ready, and to any of them when none
 * is known ready yet (a start before the first probe, or all of them busy starting: each answers
 * 503 itself while it cannot serve). A replica found unreachable by a request is taken out at once;
 * it is sent traffic again when its `/ready` answers 200. When one goes out while another is ready,
 * its SDK streams are closed, so each SDK reconnects through the gateway to a live replica.
 */
export class ReplicaPool {
  readonly replicas: Replica[];
  private next = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly service: RoutedService,
    urls: string[],
    private readonly logger: Logger,
    private readonly options: ReplicaPoolOptions = {},
  ) {
    if (urls.length === 0) throw new TypeError(`no address for ${service}`);
    this.replicas = urls.map((url) => ({ url: url.replace(/\/+$/, ""), ready: false, streams: new Set(), slowProbes: 0 }));
  }

  /** Starts asking every replica's `/ready`, now and every `probeEveryMs`. */
  start(): Promise<void> {
    const first = this.probeAll();
    this.timer = setInterval(() => void this.probeAll(), this.options.probeEveryMs ?? 1000);
    this.timer.unref();
    return first;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  get readyCount(): number {
    return this.replicas.filter((r) => r.ready).length;
  }

  /** The next replica to try, skipping those already tried for this request; undefined when none is left. */
  pick(tried: ReadonlySet<Replica> = new Set()): Replica | undefined {
    const untried = this.replicas.filter((r) => !tried.has(r));
    const ready = untried.filter((r) => r.ready);
    const candidates = ready.length > 0 ? ready : untried;
    if (candidates.length === 0) return undefined;
    return candidates[this.next++ % candidates.length];
  }

  /** A request could not reach it: no more traffic until its `/ready` says 200 again. */
  unreachable(replica: Replica, reason: string): void {
    if (replica.ready)
      this.logger.warn({ surface: this.service, replica: replica.url, reason }, "replica unreachable; sending its traffic to the others");
    this.goOut(replica);
  }

  private goOut(replica: Replica): void {
    replica.ready = false;
    this.handOverStreams();
  }

  /**
   * Closes the SDK streams of the replicas out of traffic once another is ready, so each SDK
   * reconnects through the gateway to one that is there. With none ready they stay: a replica that
   * answers its probes late (a busy machine) or is briefly unready still serves them, and one that
   * died has already ended them.
   */
  private handOverStreams(): void {
    if (this.readyCount === 0) return;
    for (const replica of this.replicas) {
      if (replica.ready) continue;
      for (const stream of replica.streams) stream.destroy();
      replica.streams.clear();
    }
  }

  private probeAll(): Promise<void> {
    return Promise.all(this.replicas.map((replica) => this.probe(replica))).then(() => undefined);
  }

  private async probe(replica: Replica): Promise<void> {
    const answer = await fetch(`${replica.url}/ready`, { signal: AbortSignal.timeout(this.options.probeTimeoutMs ?? 1000) }).then(
      async (res) => {
        await res.body?.cancel();
        return res.ok ? "ready" : "not ready";
      },
      (err: unknown) => (err instanceof Error && err.name === "TimeoutError" ? "late" : "unreachable"),
    );
    replica.slowProbes = answer === "late" ? replica.slowProbes + 1 : 0;
    if (answer === "late" && replica.slowProbes < slowProbesTolerated) return;
    const ready = answer === "ready";
    if (ready === replica.ready) return;
    if (ready) {
      replica.ready = true;
      this.logger.info({ surface: this.service, replica: replica.url }, "replica ready; sending it traffic");
      this.handOverStreams();
    } else {
      this.logger.warn({ surface: this.service, replica: replica.url }, "replica not ready; sending its traffic to the others");
      this.goOut(replica);
    }
  }
}
