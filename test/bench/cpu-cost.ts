/**
 * `npm run bench:cpu`: what one request or one admin write costs the server in CPU time. Starts the
 * built gateway (single mode, embedded store, `LOG_LEVEL=warn`), seeds the benchmark mix up to
 * each size and, for each kind of call, fires a fixed number of them at a fixed concurrency and
 * reads the server's user + system time from /proc/<pid>/stat before and after (after the server
 * has settled, so work a write leaves behind — the outbox, the snapshot publish, frontend-eval's
 * patch — counts too). CPU time per call holds while the machine is shared, unlike requests/s.
 *
 * Environment: BENCH_SIZES (default 200,2000), BENCH_REQUESTS (SDK requests per kind, default
 * 2000), BENCH_WRITES (admin writes, default 400), BENCH_CONCURRENCY (default 16), BENCH_CPU_PROF=1
 * (a V8 CPU profile of the server in test/bench/profiles/, written when the run ends),
 * BENCH_ONLY (comma-separated kinds: frontend, full, 304, writes), BENCH_DATA_DIR (keep the seeded
 * store in this folder and start from it on the next run, seeding only what is missing).
 */
import { Agent, get } from "node:http";
import { loadavg } from "node:os";
import path from "node:path";
import { repoRoot } from "../src/vexil-process.js";
import {
  benchTokens as tokens,
  cpuMicros,
  startBenchVexil,
  adminOver,
  flagName,
  frontendContext,
  pool,
  seedFlags,
  type Admin,
  seedSegments,
} from "./workload.js";

const sizes = (process.env.BENCH_SIZES ?? "200,2000").split(",").map(Number);
const requests = Number(process.env.BENCH_REQUESTS ?? 2000);
const writes = Number(process.env.BENCH_WRITES ?? 400);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const only = new Set((process.env.BENCH_ONLY ?? "frontend,full,304,writes").split(","));
const clientHeaders = { authorization: tokens.client, "unleash-client-spec": "5.2.0" };

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

/**
 * CPU µs of the server per call, and how busy it kept the server (its CPU time over the wall time,
 * 1 = one core): `fire` runs `count` times, `concurrency` at a time, making `calls` calls each.
 */
async function cpuPerCall(
  pid: number,
  count: number,
  fire: (i: number) => Promise<void>,
  calls = 1,
): Promise<{ micros: number; busy: number }> {
  await pool(
    Array.from({ length: Math.min(200, count) }, (_, i) => i),
    concurrency,
    fire,
  ); // warm-up: the JIT, caches built on first use
  await settle();
  const before = cpuMicros(pid);
  const started = performance.now();
  await pool(
    Array.from({ length: count }, (_, i) => i),
    concurrency,
    fire,
  );
  const wallMicros = (performance.now() - started) * 1000;
  await settle();
  const cpu = cpuMicros(pid) - before;
  return { micros: cpu / (count * calls), busy: cpu / wallMicros };
}

const perCall = ({ micros, busy }: { micros: number; busy: number }) => `${Math.round(micros)} µs | ${busy.toFixed(2)} |`;

function getter(base: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  return (pathname: string, headers: Record<string, string>) =>
    new Promise<void>((resolve, reject) => {
      get(`${base}${pathname}`, { agent, headers }, (res) => {
        if (res.statusCode === undefined || res.statusCode >= 400) reject(new Error(`${pathname}: ${res.statusCode}`));
        res.on("end", resolve).resume();
      }).on("error", reject);
    });
}

async function etag(url: string): Promise<string> {
  const res = await fetch(`${url}/api/client/features`, { headers: clientHeaders });
  await res.arrayBuffer();
  return res.headers.get("etag")!;
}

/** The bench segments and how many flags a kept store already holds (none in a new one). */
async function seeded(url: string, admin: Admin): Promise<{ segmentIds: number[]; flags: number }> {
  const headers = { authorization: tokens.admin };
  const segments = (await (await fetch(`${url}/api/admin/segments`, { headers })).json()) as {
    segments: Array<{ id: number; name: string }>;
  };
  const segmentIds = segments.segments.filter((s) => s.name.startsWith("bench-segment-")).map((s) => s.id);
  if (segmentIds.length === 0) return { segmentIds: await seedSegments(admin), flags: 0 };
  const search = (await (await fetch(`${url}/api/admin/search/features?limit=1&query=bench-`, { headers })).json()) as { total: number };
  return { segmentIds, flags: search.total };
}

async function main() {
  const vexil = await startBenchVexil({
    dataDir: process.env.BENCH_DATA_DIR,
    nodeArgs: process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${path.join(repoRoot, "test/bench/profiles")}`] : [],
  });
  const pid = vexil.child.pid!;
  const { admin } = adminOver(vexil.url, tokens.admin);
  const send = getter(vexil.url);
  const rows: string[] = [];
  try {
    const kept = await seeded(vexil.url, admin);
    let count = kept.flags;
    for (const flags of sizes) {
      if (count < flags) await seedFlags(admin, count, flags, kept.segmentIds);
      count = Math.max(count, flags);
      await settle();
      const idle = cpuMicros(pid);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      rows.push(`| ${count} | idle (per second) | ${Math.round(cpuMicros(pid) - idle)} µs | |`);
      if (only.has("frontend")) {
        const cost = await cpuPerCall(pid, requests, (i) =>
          send(`/api/frontend?${frontendContext(i)}`, { authorization: tokens.frontend }),
        );
        rows.push(`| ${count} | \`/api/frontend\`, a different user each request | ${perCall(cost)}`);
      }
      if (only.has("full")) {
        const cost = await cpuPerCall(pid, requests, () => send("/api/client/features", clientHeaders));
        rows.push(`| ${count} | \`/api/client/features\` full payload | ${perCall(cost)}`);
      }
      if (only.has("304")) {
        const headers = { ...clientHeaders, "if-none-match": await etag(vexil.url) };
        const cost = await cpuPerCall(pid, requests, () => send("/api/client/features", headers));
        rows.push(`| ${count} | \`/api/client/features\` 304 | ${perCall(cost)}`);
      }
      if (only.has("writes")) {
        // Flags that are on (four in five), each switched off and on again: two writes, every flag ends as it was.
        const names = Array.from({ length: count }, (_, i) => i).filter((i) => i % 5 !== 0);
        const cost = await cpuPerCall(
          pid,
          writes / 2,
          async (i) => {
            const name = flagName(names[i % names.length]!);
            await admin.setEnabled(name, "development", false);
            await admin.setEnabled(name, "development", true);
          },
          2,
        );
        rows.push(`| ${count} | admin write (switch a flag off or on) | ${perCall(cost)}`);
      }
      console.error(rows.slice(-5).join("\n"));
    }
  } finally {
    await vexil.stop();
  }
  console.log(`${new Date().toISOString()}; load average ${loadavg()[0]!.toFixed(1)}; concurrency ${concurrency}\n`);
  console.log("| flags | call | server CPU per call | server busy (cores) |\n|---|---|---|---|");
  console.log(rows.join("\n"));
}

await main();
