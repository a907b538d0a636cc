/**
 * A Redis outage while admin keeps taking writes: the compiled single process against a private
 * `redis-server`, a flag created every 100 ms (one at a time) for 30 s before the outage and 40 s
 * during it, and `/health` asked every second. Checked: every write is acknowledged during the
 * outage, the snapshot publisher logs the outage once (not a stack trace per write) and says when
 * it is over and after how many failed rebuilds, and once Redis is back (empty) the client API
 * serves the last flag written. Write and `/health` latencies before and during the outage are
 * measured and reported, not asserted: the machine may be loaded.
 */
import { afterAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { createTokenSecret } from "@vexil/auth";
import { privateServersMissing, startPrivateRedis, type PrivateServer } from "../src/private-servers.js";
import { waitFor } from "../src/servers.js";
import { gatewayEntry, missingBuildMessage, startVexilProcess, type VexilProcess } from "../src/vexil-process.js";
import { adminFetch, environment, type Gateway } from "./load.js";

const tokens = {
  admin: createTokenSecret({ projects: ["*"], environment: "*" }),
  client: createTokenSecret({ projects: ["*"], environment }),
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const skipReason = privateServersMissing() ?? (existsSync(gatewayEntry) ? undefined : missingBuildMessage);

interface Timings {
  writes: number[];
  failed: Array<{ status: number; body: string }>;
  health: number[];
  lastFlag?: string;
}

/** Creates a flag every `everyMs` (one at a time) and asks /health every second, for `forMs`. */
async function steadyWrites(gateway: Gateway, prefix: string, forMs: number, everyMs = 100): Promise<Timings> {
  const timings: Timings = { writes: [], failed: [], health: [] };
  const until = Date.now() + forMs;
  const healthProbe = (async () => {
    while (Date.now() < until) {
      const started = performance.now();
      await fetch(`${gateway.url}/health`, { signal: AbortSignal.timeout(15_000) }).then(
        (res) => res.arrayBuffer(),
        () => undefined,
      );
      timings.health.push(performance.now() - started);
      await sleep(1000);
    }
  })();
  for (let i = 0; Date.now() < until; i++) {
    const name = `${prefix}-${i}`;
    const started = performance.now();
    const res = await adminFetch(gateway, "/api/admin/projects/default/features", { method: "POST", body: { name } }).catch(
      (err: Error) => ({ ok: false, status: 0, text: async () => err.message }) as const,
    );
    timings.writes.push(performance.now() - started);
    if (res.ok) timings.lastFlag = name;
    else timings.failed.push({ status: res.status, body: await res.text() });
    await sleep(everyMs);
  }
  await healthProbe;
  return timings;
}

function summary(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(0);
  return `p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${sorted.at(-1)!.toFixed(0)} ms (${values.length})`;
}

describe.skipIf(skipReason)("a Redis outage under steady admin writes", () => {
  let redis: PrivateServer | undefined;
  let vexil: VexilProcess | undefined;
  afterAll(async () => {
    await vexil?.stop();
    await redis?.dispose();
  }, 60_000);

  it("keeps writes at their usual cost, logs the outage once, and publishes everything once Redis is back", async () => {
    redis = await startPrivateRedis();
    vexil = await startVexilProcess({
      env: { REDIS_URL: redis.url, NATS_URL: undefined, INIT_ADMIN_API_TOKENS: tokens.admin, INIT_CLIENT_API_TOKENS: tokens.client },
    });
    const gateway: Gateway = { url: vexil.url, ...tokens };

    const before = await steadyWrites(gateway, "before", 30_000);
    expect(before.failed).toEqual([]);

    const logLinesBefore = vexil.logLines().length;
    await redis.stop();
    const during = await steadyWrites(gateway, "during", 40_000);
    expect(during.failed, "every write during the outage acknowledged").toEqual([]);
    const outageLines = vexil.logLines().slice(logLinesBefore);
    const publisherLines = outageLines.filter((line) => typeof line.msg === "string" && line.msg.startsWith("snapshot"));
    expect(
      publisherLines.map((line) => line.msg),
      "the publisher logs the outage once",
    ).toEqual(["snapshot rebuild failed; retrying with a full reload, waiting longer after each failure"]);

    const backAt = Date.now();
    await redis.start();
    const served = await waitFor(
      async () => {
        const res = await fetch(`${vexil!.url}/api/client/features`, { headers: { authorization: tokens.client } });
        if (!res.ok) return false;
        const { features } = (await res.json()) as { features: Array<{ name: string }> };
        return features.some((feature) => feature.name === during.lastFlag);
      },
      60_000,
      100,
    );
    expect(served, "the last flag written during the outage reaches the client API").toBe(true);
    const recoveredAfterMs = Date.now() - backAt;
    const recovered = vexil.logLines().find((line) => line.msg === "snapshots published again after failed rebuilds");
    expect(recovered, "the end of the outage is logged").toBeDefined();

    console.log(
      `Redis outage under writes: admin writes before ${summary(before.writes)}; during ${summary(during.writes)}; ` +
        `/health before ${summary(before.health)}, during ${summary(during.health)}; ` +
        `${outageLines.length} log lines during the 40 s outage (${publisherLines.length} from the snapshot publisher, ` +
        `${outageLines.filter((line) => line.level >= 50).length} at error); ${recovered?.failures} failed rebuilds in all; ` +
        `last flag on the client API ${recoveredAfterMs} ms after Redis was back (empty)`,
    );
  }, 300_000);
});
