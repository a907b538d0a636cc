/**
 * What the replica suite watches beside the fault suite's load (load.ts): every SDK request through
 * the gateway, and which revision each frontend-eval replica serves.
 */
import { UnleashClient } from "unleash-proxy-client";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A failed SDK request: when, what, and what came back (0: no answer). */
export interface FailedRequest {
  at: number;
  path: string;
  status: number;
}

/**
 * SDK requests through the gateway as fast as they are answered, one after another per path (the
 * client API with a client token, the frontend API with a frontend token), each failure recorded.
 */
export function startSdkProbe(gatewayUrl: string, tokens: { client: string; frontend: string }) {
  const failures: FailedRequest[] = [];
  let sent = 0;
  let stopped = false;
  const paths: Array<[string, string]> = [
    ["/api/client/features", tokens.client],
    ["/api/frontend?userId=probe", tokens.frontend],
  ];
  const loops = paths.map(async ([path, token]) => {
    while (!stopped) {
      const status = await fetch(`${gatewayUrl}${path}`, { headers: { authorization: token }, signal: AbortSignal.timeout(10_000) }).then(
        async (res) => {
          await res.arrayBuffer();
          return res.status;
        },
        () => 0,
      );
      sent++;
      if (status !== 200) failures.push({ at: Date.now(), path, status });
      await sleep(50);
    }
  });
  return {
    failures,
    get sent() {
      return sent;
    },
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/** Browser SDKs (`unleash-proxy-client`) polling `/api/frontend` through the gateway, their errors counted. */
export async function startProxyClients(gatewayUrl: string, frontendToken: string, count = 2) {
  const errors: Array<{ at: number; error: string }> = [];
  const clients = Array.from(
    { length: count },
    (_, i) =>
      new UnleashClient({
        url: `${gatewayUrl}/api/frontend`,
        clientKey: frontendToken,
        appName: `replicas-browser-${i}`,
        refreshInterval: 1,
        disableMetrics: true,
        context: { userId: `user-${i}` },
      }),
  );
  for (const client of clients) client.on("error", (error: unknown) => errors.push({ at: Date.now(), error: String(error) }));
  await Promise.all(clients.map((client) => client.start()));
  return {
    errors,
    stop() {
      for (const client of clients) client.stop();
    },
  };
}

/**
 * The revision a replica's client API serves, from its ETag (`"<hash>:<revision>:v1"`); `held` is
 * the ETag it gave last time, so an unchanged answer is a 304 without the body.
 */
async function servedRevision(url: string, token: string, held: Map<string, string>): Promise<number | undefined> {
  try {
    const res = await fetch(`${url}/api/client/features`, {
      headers: { authorization: token, ...(held.has(url) ? { "if-none-match": held.get(url)! } : {}) },
      signal: AbortSignal.timeout(5000),
    });
    await res.arrayBuffer();
    const etag = res.headers.get("etag");
    if (!etag || (res.status !== 200 && res.status !== 304)) return undefined;
    held.set(url, etag);
    const revision = Number(etag.split(":")[1]);
    return Number.isFinite(revision) ? revision : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Asks every replica which revision it serves, every 100 ms. For each revision, the time from the
 * first replica serving it (or a later one) to every live replica doing so is one sample of how far
 * apart the replicas are; `take()` hands over the samples since the last call.
 */
export function startRevisionWatch(replicaUrls: string[], token: string) {
  let stopped = false;
  /** Revision to the time the first replica served it. */
  const firstSeen = new Map<number, number>();
  let samples: number[] = [];
  let settledUpTo = 0;
  const etags = new Map<string, string>();
  const loop = (async () => {
    while (!stopped) {
      const now = Date.now();
      const served = (await Promise.all(replicaUrls.map((url) => servedRevision(url, token, etags)))).filter(
        (r): r is number => r !== undefined,
      );
      if (served.length > 0) {
        const newest = Math.max(...served);
        const oldest = Math.min(...served);
        for (const revision of served) if (!firstSeen.has(revision)) firstSeen.set(revision, now);
        if (!firstSeen.has(newest)) firstSeen.set(newest, now);
        // Every revision up to the oldest served is now served by every replica that answered.
        for (const [revision, at] of firstSeen) {
          if (revision <= oldest && revision > settledUpTo) samples.push(now - at);
        }
        for (const revision of [...firstSeen.keys()]) if (revision <= oldest) firstSeen.delete(revision);
        settledUpTo = Math.max(settledUpTo, oldest);
      }
      await sleep(100);
    }
  })();
  return {
    /** The samples (ms) since the last call. */
    take(): number[] {
      const taken = samples;
      samples = [];
      return taken;
    },
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
