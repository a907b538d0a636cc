/**
 * `npm run bench:replicas`: `/api/frontend` requests per second through the cluster gateway with
 * one and then two frontend-eval replicas (`npm run start:cluster` with `FRONTEND_EVAL_REPLICAS`),
 * measured with wrk (`/usr/bin/wrk`, Debian's package) from the same machine. Each run gets its own
 * NATS and Redis and a fresh cluster, seeded with the benchmark's flag mix. Also reported: how
 * busy the gateway and the frontend-eval processes were, which says where the limit is.
 *
 * Options: BENCH_REPLICAS=1,2  BENCH_FLAGS=200  BENCH_DURATION=20 (s)  BENCH_CONNECTIONS=50  BENCH_THREADS=2
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { waitFor } from "../src/servers.js";
import { adminOver, benchTokens as tokens, cpuMicros, seedFlags, seedSegments, startBenchCluster } from "./workload.js";

const wrk = "/usr/bin/wrk";
const numbers = (value: string) => value.split(",").filter(Boolean).map(Number);
const replicaCounts = numbers(process.env.BENCH_REPLICAS ?? "1,2");
const flags = Number(process.env.BENCH_FLAGS ?? 200);
const duration = Number(process.env.BENCH_DURATION ?? 20);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const threads = Number(process.env.BENCH_THREADS ?? 2);
if (!existsSync(wrk)) throw new Error(`${wrk} is missing: apt-get install wrk`);

/** One wrk run: requests/s, latency percentiles, and errors (non-2xx, socket errors). */
function runWrk(url: string, seconds: number) {
  const out = execFileSync(
    wrk,
    [`-t${threads}`, `-c${connections}`, `-d${seconds}s`, "--latency", "-H", `Authorization: ${tokens.frontend}`, url],
    { encoding: "utf8" },
  );
  const latency = (p: string) => /\s+(\d+(?:\.\d+)?)(us|ms|s)\s*$/m.exec(out.split("\n").find((l) => l.trim().startsWith(`${p}%`)) ?? "");
  const toMs = (m: RegExpExecArray | null) => (m ? Number(m[1]) * ({ us: 0.001, ms: 1, s: 1000 }[m[2] as "us" | "ms" | "s"] ?? 1) : NaN);
  const nonOk = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const socketErrors = /Socket errors: (.*)/.exec(out)?.[1] ?? "none";
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN),
    p50: toMs(latency("50")),
    p99: toMs(latency("99")),
    nonOk,
    socketErrors,
  };
}

const rows: string[] = [];
const loads: number[] = [loadavg()[0]!];
for (const count of replicaCounts) {
  const { vexil, servers } = await startBenchCluster(count);
  try {
    const { admin } = adminOver(vexil.url, tokens.admin);
    await seedFlags(admin, 0, flags, await seedSegments(admin));
    const replicaUrls = Array.from({ length: count }, (_, i) => vexil.serviceUrl("frontend-eval", i + 1));
    const query = "/api/frontend?userId=user-7&properties%5Bplan%5D=pro&tier=gold";
    // Every replica serves the whole set before the run.
    const seeded = await waitFor(
      async () =>
        (
          await Promise.all(
            replicaUrls.map(async (url) => {
              const res = await fetch(`${url}/api/client/features`, { headers: { authorization: tokens.client } });
              return res.ok && ((await res.json()) as { features: unknown[] }).features.length >= flags;
            }),
          )
        ).every(Boolean),
      60_000,
      250,
    );
    if (!seeded) throw new Error("the replicas did not serve the seeded flags");
    runWrk(`${vexil.url}${query}`, 3);
    const pids: Array<[name: string, pid: number]> = [
      ["gateway", vexil.servicePid("gateway")],
      ...replicaUrls.map((_, i): [string, number] => [`frontend-eval ${i + 1}`, vexil.servicePid("frontend-eval", i + 1)]),
    ];
    const before = pids.map(([, pid]) => cpuMicros(pid));
    const started = performance.now();
    const result = runWrk(`${vexil.url}${query}`, duration);
    const seconds = (performance.now() - started) / 1000;
    const busy = pids.map(([name, pid], i) => `${name} ${((cpuMicros(pid) - before[i]!) / 1e6 / seconds).toFixed(2)}`);
    loads.push(loadavg()[0]!);
    rows.push(
      `| ${count} | ${result.rps.toFixed(0)} | ${result.p50.toFixed(1)} ms / ${result.p99.toFixed(1)} ms | ${result.nonOk} / ${result.socketErrors} | ${busy.join(", ")} |`,
    );
    console.log(rows.at(-1));
  } finally {
    await vexil.stop();
    for (const server of servers) await server.dispose();
  }
}

const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}`;
const wrkVersion = spawnSync(wrk, ["-v"], { encoding: "utf8" }).stdout.split("\n")[0];
console.log(
  [
    "",
    `${new Date().toISOString()}; ${machine}; ${wrkVersion}; ${threads} threads, ${connections} connections, ${duration} s per run, ${flags} flags`,
    `load average (1 min) before and after each run: ${loads.map((l) => l.toFixed(1)).join(", ")}`,
    "",
    "| frontend-eval replicas | `/api/frontend` req/s through the gateway | latency p50 / p99 | non-2xx / socket errors | CPU cores busy per process |",
    "|---|---|---|---|---|",
    ...rows,
  ].join("\n"),
);
