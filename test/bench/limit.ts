/**
 * `npm run bench:limit`: how close `/api/frontend` comes to what the runtime itself can do. The same
 * wrk load (one thread, 50 connections, the context changing on every request) goes to Vexil's
 * `/api/frontend` and to a bare `node:http` server, in a process of its own, that answers every
 * request with the bytes Vexil answered for one of those contexts (same length, same content type):
 * no routing, no token check, no evaluation. Vexil ÷ bare is the share of the runtime's limit
 * Vexil reaches. Runs alternate (bare, Vexil, bare, Vexil, ...) so that other work on the machine
 * weighs on both alike; each prints the 1-minute load average at its start. Also read: the CPU time
 * the server's processes spent per answer (from /proc), which holds better than req/s while the
 * machine is shared: bare ÷ Vexil of it is the ratio a machine to itself would show.
 *
 * Modes: `single` (the compiled gateway under plain node, as `npm start` runs it, embedded engines)
 * and `cluster` (`npm run start:cluster` with a private NATS and Redis, measured through the gateway).
 *
 * Options: BENCH_MODES=single,cluster  BENCH_SIZES=200,2000  BENCH_DURATION=10 (s)  BENCH_WARMUP=3 (s)
 * BENCH_ROUNDS=2  BENCH_CONNECTIONS=50. Needs `/usr/bin/wrk` (Debian's package).
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import path from "node:path";
import type { PrivateServer } from "../src/private-servers.js";
import type { VexilProcess } from "../src/vexil-process.js";
import {
  adminOver,
  benchTokens as tokens,
  cpuMicros,
  frontendContext,
  seedFlags,
  seedSegments,
  startBenchCluster,
  startBenchVexil,
} from "./workload.js";

const wrk = "/usr/bin/wrk";
const list = (value: string) => value.split(",").filter(Boolean);
const modes = list(process.env.BENCH_MODES ?? "single,cluster") as Array<"single" | "cluster">;
const sizes = list(process.env.BENCH_SIZES ?? "200,2000").map(Number);
const duration = Number(process.env.BENCH_DURATION ?? 10);
const warmup = Number(process.env.BENCH_WARMUP ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
if (!existsSync(wrk)) throw new Error(`${wrk} is missing: apt-get install wrk`);

/**
 * wrk's request generator: `/api/frontend` for the n-th context of the benchmark's sequence
 * (`frontendContext` in workload.ts, URL-encoded), n cycling through 100,000 users.
 */
const wrkScript = (token: string) => `
local plans = { "free", "pro", "enterprise" }
local n = 0
wrk.headers["Authorization"] = "${token}"
request = function()
  n = (n + 1) % 100000
  return wrk.format("GET", "/api/frontend?userId=user-" .. n .. "&properties%5Bplan%5D=" .. plans[n % 3 + 1] .. "&appVersion=2.1." .. (n % 10))
end
`;

/**
 * The bare server: node:http answering every request with the same bytes and headers Vexil sent
 * (content type and length), started with plain node in a process of its own.
 */
const bareServerSource = `
const { createServer } = require("node:http");
const { readFileSync } = require("node:fs");
const body = readFileSync(process.argv[1]);
const server = createServer((req, res) => {
  req.resume();
  res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": body.length });
  res.end(body);
});
server.listen(0, "127.0.0.1", () => console.log(String(server.address().port)));
`;

interface WrkResult {
  rps: number;
  /** CPU time the server's processes spent per answer: what other work on the machine changes least. */
  cpuPerRequest: number;
  p50: number;
  p99: number;
  /** Non-2xx answers and socket errors, as wrk reports them. */
  errors: string;
}

function runWrk(script: string, url: string, seconds: number, pids: number[]): WrkResult {
  const cpu = () => pids.reduce((sum, pid) => sum + cpuMicros(pid), 0);
  const before = cpu();
  const started = performance.now();
  const out = execFileSync(wrk, ["-t1", `-c${connections}`, `-d${seconds}s`, "--latency", "-s", script, url], { encoding: "utf8" });
  const latency = (p: string) => {
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s)\\s*$`, "m").exec(out);
    return m ? Number(m[1]) * { us: 0.001, ms: 1, s: 1000 }[m[2] as "us" | "ms" | "s"] : NaN;
  };
  const nonOk = /Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1];
  // wrk's socket error counts, the ones above zero (a timeout is an answer not back within 2 s).
  const socketCounts = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)?.slice(1).map(Number) ?? [];
  const socket = ["connect", "read", "write", "timeout"]
    .map((kind, i) => (socketCounts[i] ? `${socketCounts[i]} ${kind}` : ""))
    .filter(Boolean)
    .join(", ");
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  return {
    rps,
    cpuPerRequest: (cpu() - before) / (rps * ((performance.now() - started) / 1000)),
    p50: latency("50"),
    p99: latency("99"),
    errors: [nonOk && `${nonOk} non-2xx`, socket && `socket errors: ${socket}`].filter(Boolean).join(", ") || "none",
  };
}

async function startBareServer(bodyFile: string): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ["-e", bareServerSource, bodyFile], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout!.once("data", (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once("exit", (code) => reject(new Error(`the bare server exited (${code})`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

async function startVexil(mode: "single" | "cluster"): Promise<{ vexil: VexilProcess; servers: PrivateServer[] }> {
  return mode === "single" ? { vexil: await startBenchVexil(), servers: [] } : startBenchCluster();
}

/** Waits until the SDK surface serves every seeded flag (the client API lists them all, on or off). */
async function untilServed(url: string, flags: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const res = await fetch(`${url}/api/client/features`, { headers: { authorization: tokens.client } });
    if (res.ok && ((await res.json()) as { features: unknown[] }).features.length >= flags) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the client API did not list the ${flags} seeded flags`);
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

const dir = await mkdtemp(path.join(tmpdir(), "vexil-limit-"));
const script = path.join(dir, "frontend.lua");
await writeFile(script, wrkScript(tokens.frontend));
const rows: string[] = [];
const started = new Date().toISOString();
try {
  for (const mode of modes) {
    const { vexil, servers } = await startVexil(mode);
    try {
      const { admin } = adminOver(vexil.url, tokens.admin);
      // Single mode: the one process (and any children); cluster: the gateway and frontend-eval, the two on the path.
      const vexilPids = mode === "single" ? [vexil.child.pid!] : [vexil.servicePid("gateway"), vexil.servicePid("frontend-eval")];
      const segmentIds = await seedSegments(admin);
      let seeded = 0;
      for (const size of sizes) {
        await seedFlags(admin, seeded, size, segmentIds);
        seeded = size;
        await untilServed(vexil.url, size);
        const answer = await fetch(`${vexil.url}/api/frontend?${frontendContext(7)}`, { headers: { authorization: tokens.frontend } });
        const bodyFile = path.join(dir, `answer-${mode}-${size}.json`);
        const body = Buffer.from(await answer.arrayBuffer());
        await writeFile(bodyFile, body);
        const bare = await startBareServer(bodyFile);
        try {
          const targets = [
            { name: "bare", url: `${bare.url}/api/frontend`, pids: [bare.pid] },
            { name: "vexil", url: `${vexil.url}/api/frontend`, pids: vexilPids },
          ];
          for (const target of targets) runWrk(script, target.url, warmup, target.pids);
          const results: Record<string, WrkResult[]> = { bare: [], vexil: [] };
          const loads: string[] = [];
          for (let round = 0; round < rounds; round++) {
            for (const target of targets) {
              loads.push(loadavg()[0]!.toFixed(1));
              const result = runWrk(script, target.url, duration, target.pids);
              results[target.name]!.push(result);
              console.log(
                `${mode}, ${size} flags, ${target.name}, round ${round + 1} (load ${loads.at(-1)}): ${fmt(result.rps)} req/s, ${fmt(result.cpuPerRequest)} µs CPU each, p50 ${result.p50} ms, p99 ${result.p99} ms, errors ${result.errors}`,
              );
            }
          }
          const bareRps = mean(results.bare!.map((r) => r.rps));
          const vexilRps = mean(results.vexil!.map((r) => r.rps));
          const each = (name: string) => results[name]!.map((r) => fmt(r.rps)).join(" / ");
          const cpuEach = (name: string) => mean(results[name]!.map((r) => r.cpuPerRequest));
          const p99 = (name: string) => results[name]!.map((r) => `${r.p99}`).join(" / ");
          rows.push(
            `| ${mode} | ${fmt(size)} | ${(body.length / 1024).toFixed(1)} kB | ${fmt(bareRps)} (${each("bare")}) | ${fmt(vexilRps)} (${each("vexil")}) | ${p99("vexil")} ms | ${(vexilRps / bareRps).toFixed(2)} | ${fmt(cpuEach("bare"))} / ${fmt(cpuEach("vexil"))} µs, ${(cpuEach("bare") / cpuEach("vexil")).toFixed(2)} | ${results.vexil!.map((r) => r.errors).join(" / ")} | ${loads.join(", ")} |`,
          );
          console.log(rows.at(-1));
        } finally {
          await bare.stop();
        }
      }
    } finally {
      await vexil.stop();
      for (const server of servers) await server.dispose();
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}

const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}`;
const wrkVersion = spawnSync(wrk, ["-v"], { encoding: "utf8" }).stdout.split("\n")[0];
console.log(
  [
    "",
    `${started} – ${new Date().toISOString()}; ${machine}; ${wrkVersion}; 1 thread, ${connections} connections, ${warmup} s warm-up, ${duration} s per run, ${rounds} rounds`,
    "",
    "| mode | flags | answer | bare node:http req/s (each run) | Vexil req/s (each run) | Vexil p99 | Vexil ÷ bare | CPU per answer, bare / Vexil, and bare ÷ Vexil | Vexil errors | load average at each run's start (bare, Vexil, ...) |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...rows,
  ].join("\n"),
);
