import { request, type ClientRequest, type IncomingMessage } from "node:http";

/**
 * Many `/api/client/streaming` streams held open from one process, as many SDKs in streaming mode
 * would hold them: each records when it was connected, when text containing a watched marker
 * (a flag's name) first arrived, and whether it ended.
 */
export class SdkStream {
  connectedAt: number | undefined;
  /** Set when the stream ended or failed before `close()`: the server dropped it. */
  droppedAt: number | undefined;
  /** Why it was dropped: a status, a socket error, or the server ending it. */
  droppedBecause: string | undefined;
  private closing = false;
  private tail = "";
  private readonly watched = new Map<string, number | undefined>();
  private readonly req: ClientRequest;

  constructor(
    url: string,
    token: string,
    private readonly onConnected: (stream: SdkStream) => void,
    private readonly onFailed: (stream: SdkStream, reason: string) => void,
  ) {
    // One socket each (no pooling), as separate SDK instances would have.
    this.req = request(`${url}/api/client/streaming`, { headers: { authorization: token }, agent: false });
    this.req.on("response", (res) => this.read(res));
    this.req.on("error", (err) => this.fail(err.message));
    this.req.end();
  }

  /** Starts looking for `marker` in what arrives from now on. */
  watch(marker: string): void {
    this.watched.set(marker, undefined);
  }

  /** When `marker` arrived (performance.now()), if it has. */
  seen(marker: string): number | undefined {
    return this.watched.get(marker);
  }

  close(): void {
    this.closing = true;
    this.req.destroy();
  }

  private read(res: IncomingMessage): void {
    if (res.statusCode !== 200) {
      res.resume();
      this.fail(`status ${res.statusCode}`);
      return;
    }
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      // A marker may straddle two chunks: look in the end of the previous one too.
      const text = this.tail + chunk;
      if (this.connectedAt === undefined && text.includes("event: unleash-connected")) {
        this.connectedAt = performance.now();
        this.onConnected(this);
      }
      for (const [marker, at] of this.watched) {
        if (at === undefined && text.includes(marker)) this.watched.set(marker, performance.now());
      }
      this.tail = chunk.slice(-128);
    });
    res.on("close", () => this.fail("ended by the server"));
  }

  private fail(reason: string): void {
    if (this.closing || this.droppedAt !== undefined) return;
    this.droppedAt = performance.now();
    this.droppedBecause = reason;
    this.onFailed(this, reason);
  }
}

/**
 * Opens `count` streams, at most `concurrency` waiting for their first message at a time (more
 * would overflow the listen backlog and measure the kernel's SYN retries, not the server), and
 * resolves when all are connected. Failures are counted, not retried.
 */
export function openSdkStreams(
  url: string,
  token: string,
  count: number,
  concurrency: number,
): Promise<{ streams: SdkStream[]; failures: string[] }> {
  const streams: SdkStream[] = [];
  const failures: string[] = [];
  return new Promise((resolve) => {
    let started = 0;
    let settled = 0;
    const next = () => {
      if (started >= count) return;
      started++;
      let counted = false;
      const settle = () => {
        if (counted) return;
        counted = true;
        settled++;
        if (settled === count) resolve({ streams, failures });
        else next();
      };
      streams.push(
        new SdkStream(url, token, settle, (_stream, reason) => {
          failures.push(reason);
          settle();
        }),
      );
    };
    for (let i = 0; i < Math.min(concurrency, count); i++) next();
  });
}
