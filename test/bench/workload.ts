/**
 * What the benchmarks send: a deterministic flag mix seeded through the admin API (the same calls
 * work against Vexil and Unleash), load runs with autocannon or a body-discarding client, and the
 * time from an admin change until `/api/frontend` shows it.
 */
import { readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { Agent, get } from "node:http";
import autocannon from "autocannon";
import { flagAdmin, type AdminCall } from "../src/flag-admin.js";
import { startPrivateNats, startPrivateRedis, type PrivateServer } from "../src/private-servers.js";
import { tokenSecret } from "../src/tokens.js";
import { gatewayEntry, repoRoot, startVexilProcess, type VexilProcess, type VexilProcessOptions } from "../src/vexil-process.js";

export const connections = 50;

export type Admin = ReturnType<typeof flagAdmin>;

/** One admin, client and frontend token for every project, given to each server a benchmark starts. */
export const benchTokens = {
  admin: tokenSecret("*", "*"),
  client: tokenSecret("*", "development"),
  frontend: tokenSecret("*", "development"),
};

/** Builds the gateway (turbo, cached) and starts it under plain node, as the images run it, with `benchTokens`. */
export async function startBenchVexil(options: Omit<VexilProcessOptions, "env"> = {}): Promise<VexilProcess> {
  const build = spawnSync("npx", ["turbo", "run", "build", "--filter=@vexil/gateway...", "--output-logs=errors-only"], {
    cwd: repoRoot,
    stdio: "inherit",
  });
  if (build.status !== 0) throw new Error(`building the gateway failed; ${gatewayEntry} is what runs`);
  return startVexilProcess({
    ...options,
    env: {
      LOG_LEVEL: "warn",
      INIT_ADMIN_API_TOKENS: benchTokens.admin,
      INIT_CLIENT_API_TOKENS: benchTokens.client,
      INIT_FRONTEND_API_TOKENS: benchTokens.frontend,
    },
  });
}

/**
 * `npm run start:cluster` on a NATS and a Redis of its own with `benchTokens`, `frontendEvalReplicas`
 * frontend-eval processes (one unless said); `servers` are to be disposed of after the process stops.
 */
export async function startBenchCluster(frontendEvalReplicas = 1): Promise<{ vexil: VexilProcess; servers: PrivateServer[] }> {
  const nats = await startPrivateNats();
  const redis = await startPrivateRedis();
  const vexil = await startVexilProcess({
    mode: "cluster",
    replicas: { "frontend-eval": frontendEvalReplicas },
    readyTimeoutMs: 240_000,
    env: {
      NATS_URL: nats.url,
      REDIS_URL: redis.url,
      LOG_LEVEL: "warn",
      INIT_ADMIN_API_TOKENS: benchTokens.admin,
      INIT_CLIENT_API_TOKENS: benchTokens.client,
      INIT_FRONTEND_API_TOKENS: benchTokens.frontend,
    },
  });
  return { vexil, servers: [nats, redis] };
}

/** An admin client over fetch with one token, as an operator's script would use it. */
export function adminOver(url: string, token: string, project = "default"): { admin: Admin; call: AdminCall } {
  const call: AdminCall = (pathname, init) =>
    fetch(`${url}${pathname}`, {
      method: init?.method ?? "GET",
      headers: { authorization: token, ...(init?.body !== undefined ? { "content-type": "application/json" } : {}) },
      body: init?.body === undefined ? undefined : JSON.stringify(init.body),
    });
  return { admin: flagAdmin(call, project), call };
}

/** Deterministic pseudo-random numbers, so every run seeds the same flags. */
export function rng(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1664525 + 1013904223) % 4294967296;
    return state / 4294967296;
  };
}

export async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

export const flagName = (index: number) => `bench-${String(index).padStart(5, "0")}`;

/** Ten segments of twenty user ids each; returns their ids. */
export async function seedSegments(admin: Admin): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < 10; i++) {
    const values = Array.from({ length: 20 }, (_, j) => `user-${i * 20 + j}`);
    ids.push(await admin.createSegment(`bench-segment-${i}`, [{ contextName: "userId", operator: "IN", values }]));
  }
  return ids;
}

/**
 * A mix like a real installation's, flags `from` to `to - 1`: 35 % gradual rollouts, 20 % rollouts
 * with two constraints, 15 % with a segment, 15 % strategy variants with a payload, 15 % the
 * default strategy with a fixed and a variable variant; four in five flags are on in development.
 * (Unleash 8 refuses environment variants on a flag that has none, so the mix uses strategy variants.)
 */
export async function seedFlags(admin: Admin, from: number, to: number, segmentIds: number[], concurrency = 8) {
  const random = rng(from + 1);
  const plans = ["free", "pro", "enterprise"];
  const specs = Array.from({ length: to - from }, (_, i) => ({ index: from + i, roll: random(), rollout: Math.floor(random() * 101) }));
  await pool(specs, concurrency, async ({ index, roll, rollout }) => {
    const name = flagName(index);
    await admin.createFeature(name);
    const rolloutParameters = { rollout: String(rollout), stickiness: "default", groupId: name };
    if (roll < 0.35) {
      await admin.addStrategy(name, "development", { name: "flexibleRollout", parameters: rolloutParameters });
    } else if (roll < 0.55) {
      await admin.addStrategy(name, "development", {
        name: "flexibleRollout",
        parameters: rolloutParameters,
        constraints: [
          { contextName: "plan", operator: "IN", values: [plans[index % 3]!] },
          { contextName: "appVersion", operator: "SEMVER_GTE", value: "2.0.0" },
        ],
      });
    } else if (roll < 0.7) {
      await admin.addStrategy(name, "development", {
        name: "flexibleRollout",
        parameters: rolloutParameters,
        segments: [segmentIds[index % segmentIds.length]!],
      });
    } else if (roll < 0.85) {
      await admin.addStrategy(name, "development", {
        name: "flexibleRollout",
        parameters: rolloutParameters,
        variants: [
          { name: "control", weight: 500, weightType: "variable", stickiness: "default" },
          {
            name: "treatment",
            weight: 500,
            weightType: "variable",
            stickiness: "default",
            payload: { type: "json", value: '{"color":"blue"}' },
          },
        ],
      });
    } else {
      await admin.addStrategy(name, "development", {
        name: "default",
        variants: [
          { name: "a", weight: 200, weightType: "fix", stickiness: "default" },
          { name: "b", weight: 800, weightType: "variable", stickiness: "default" },
        ],
      });
    }
    if (index % 5 !== 0) await admin.setEnabled(name, "development", true);
  });
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  /** Answers other than 2xx and 3xx (a 304 is what the ETag run asks for). */
  failed: number;
  errors: number;
}

export const formatLoad = (r: LoadResult) =>
  `${r.rps} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms${r.failed || r.errors ? ` (${r.failed} failed, ${r.errors} errors)` : ""}`;

export async function load(url: string, duration: number, options: Partial<autocannon.Options>): Promise<LoadResult> {
  const result = await autocannon({ url, connections, duration, ...options });
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed: result["4xx"] + result["5xx"],
    errors: result.errors,
  };
}

/** The query string of the n-th varying context `/api/frontend` is asked for. */
export const frontendContext = (n: number) =>
  `userId=user-${n}&properties[plan]=${["free", "pro", "enterprise"][n % 3]}&appVersion=2.1.${n % 10}`;

/** `/api/frontend` with a different user on every request. */
export async function loadFrontend(url: string, token: string, duration: number): Promise<LoadResult> {
  let user = 0;
  return load(`${url}/api/frontend`, duration, {
    headers: { authorization: token },
    requests: [
      {
        setupRequest: (req) => {
          user = (user + 1) % 100_000;
          return { ...req, path: `/api/frontend?${frontendContext(user)}` };
        },
      },
    ],
  });
}

/**
 * The same load from a client that discards bodies unread (node's http client): autocannon
 * decodes every response body into a string, which for a payload of several hundred kB costs the
 * load generator several times the server's CPU on the same cores, so it would measure itself.
 */
export async function drainLoad(url: string, headers: Record<string, string>, duration: number): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  let failed = 0;
  let errors = 0;
  const started = performance.now();
  const end = started + duration * 1000;
  const once = () =>
    new Promise<void>((resolve) => {
      get(url, { agent, headers }, (res) => {
        if (res.statusCode === undefined || res.statusCode < 200 || res.statusCode > 399) failed++;
        res.on("end", resolve).resume();
      }).on("error", () => {
        errors++;
        resolve();
      });
    });
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const start = performance.now();
        await once();
        latencies.push(performance.now() - start);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return {
    rps: Math.round(latencies.length / seconds),
    p50: Math.round(percentile(latencies, 50)),
    p99: Math.round(percentile(latencies, 99)),
    failed,
    errors,
  };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function until(start: number, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<number> {
  while (!(await check())) {
    if (performance.now() - start > timeoutMs) throw new Error(`change not visible within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return performance.now() - start;
}

/** Whether `/api/frontend` lists the flag (it lists enabled flags only). */
export async function frontendShows(url: string, token: string, flag: string): Promise<boolean> {
  const res = await fetch(`${url}/api/frontend?userId=probe`, { headers: { authorization: token } });
  const body = (await res.json()) as { toggles: Array<{ name: string }> };
  return body.toggles.some((toggle) => toggle.name === flag);
}

/**
 * Switches a probe flag on and off `changes` times; the time until `/api/frontend` shows each
 * change. The first `warmup` switches are not measured: the probe flag is new, so they pay for
 * compiling its path on the server and the client.
 */
export async function measureFrontendVisibility(
  url: string,
  admin: Admin,
  frontendToken: string,
  probe: string,
  changes: number,
  warmup = 0,
) {
  await admin.createFeature(probe);
  await admin.addStrategy(probe, "development", { name: "default" });
  const timings: number[] = [];
  for (let i = 0; i < warmup + changes; i++) {
    const enabled = i % 2 === 0;
    const start = performance.now();
    await admin.setEnabled(probe, "development", enabled);
    const took = await until(start, async () => (await frontendShows(url, frontendToken, probe)) === enabled);
    if (i >= warmup) timings.push(took);
  }
  return { p50: percentile(timings, 50), p99: percentile(timings, 99) };
}

/** A process and its direct children (the cluster runs one process per service). */
function processTree(pid: number): number[] {
  return [
    pid,
    ...spawnSync("pgrep", ["-P", String(pid)], { encoding: "utf8" })
      .stdout.split("\n")
      .filter(Boolean)
      .map(Number),
  ];
}

/** Resident memory of a process and its children. */
export function residentMiB(pid: number): number {
  const kib = processTree(pid).reduce((sum, p) => {
    try {
      return sum + Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      return sum;
    }
  }, 0);
  return Math.round(kib / 1024);
}

/** User + system CPU time of a process and its children in microseconds (clock ticks of 10 ms). */
export function cpuMicros(pid: number): number {
  return processTree(pid).reduce((sum, p) => {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // Fields 14 and 15 of the line (utime, stime), counted from after the command name.
      return sum + (Number(fields[11]) + Number(fields[12])) * 10_000;
    } catch {
      return sum;
    }
  }, 0);
}

/**
 * Switches existing flags off and on again, `writers` at a time, for a number of writes or of
 * seconds: writes/s and latency of one write. Flags are taken in turn, from the first again once
 * every flag had its turn.
 */
export async function measureWrites(
  admin: Admin,
  flags: number,
  limit: { writes: number } | { seconds: number },
  writers = 8,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  // Flags that are on (four in five), each switched off and on again by the same worker, so all end as they began.
  const names = Array.from({ length: flags }, (_, i) => i)
    .filter((i) => i % 5 !== 0)
    .map(flagName);
  let turns = 0;
  const more = "writes" in limit ? () => turns * 2 < limit.writes : () => performance.now() - started < limit.seconds * 1000;
  const timed = async (name: string, enabled: boolean) => {
    const start = performance.now();
    try {
      await admin.setEnabled(name, "development", enabled);
    } catch {
      errors++;
    }
    latencies.push(performance.now() - start);
  };
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (more()) {
        const name = names[turns++ % names.length]!;
        await timed(name, false);
        await timed(name, true);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    rps: Math.round(latencies.length / seconds),
    p50: Math.round(percentile(latencies, 50)),
    p99: Math.round(percentile(latencies, 99)),
    failed: errors,
    errors: 0,
  };
}
