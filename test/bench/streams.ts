/**
 * `npm run bench:streams`: thousands of SDK streams (`/api/client/streaming`) open at once, in
 * single mode (`npm start`) and through the gateway in cluster mode (`npm run start:cluster`, its
 * own NATS and Redis). For each mode: how long the streams took to open and what polls of
 * `/api/client/features` waited meanwhile, resident memory per open stream, then flag changes and
 * the time until each change reached every stream (p50, p99, slowest), and streams dropped.
 * Everything on loopback; the streams are bounded by BENCH_STREAMS and the file-descriptor limit.
 * It runs the compiled output, as the images do: `npm run build` first.
 *
 * Options: BENCH_STREAMS=10000  BENCH_MODES=single,cluster  BENCH_CHANGES=5  BENCH_FLAGS=200
 *          BENCH_OPEN_CONCURRENCY=500 (streams waiting for their first message at once)
 *          BENCH_CPU_PROF=1 (single mode: a V8 CPU profile of the server in test/bench/profiles/)
 */
import { cpus, loadavg, totalmem } from "node:os";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Worker } from "node:worker_threads";
import { openSdkStreams, type SdkStream } from "../src/sdk-streams.js";
import { parseLogLines, repoRoot, type VexilProcess } from "../src/vexil-process.js";
import {
  adminOver,
  benchTokens as tokens,
  percentile,
  residentMiB,
  seedFlags,
  seedSegments,
  startBenchCluster,
  startBenchVexil,
} from "./workload.js";

const streamCount = Number(process.env.BENCH_STREAMS ?? 10_000);
const modes = (process.env.BENCH_MODES ?? "single,cluster").split(",").filter(Boolean) as Array<"single" | "cluster">;
const changes = Number(process.env.BENCH_CHANGES ?? 5);
const flags = Number(process.env.BENCH_FLAGS ?? 200);
const openConcurrency = Number(process.env.BENCH_OPEN_CONCURRENCY ?? 500);

// Each stream is a socket here and one (single) or two (cluster: to the client and to frontend-eval) in the gateway.
const fdLimit = Number(execFileSync("sh", ["-c", "ulimit -n"], { encoding: "utf8" }).trim());
if (streamCount + 1_000 > fdLimit) {
  throw new Error(
    `BENCH_STREAMS=${streamCount} needs more than this shell's ${fdLimit} file descriptors (ulimit -n); raise it or open fewer`,
  );
}
/** Streams one mode opens: in cluster mode as many as the gateway's descriptors allow, two per stream. */
const streamsFor = (mode: "single" | "cluster") =>
  mode === "single" ? streamCount : Math.min(streamCount, Math.floor((fdLimit - 1_000) / 2));

/**
 * Polls `/api/client/features` one after another (100 ms apart) until stopped: how long each waited
 * while the streams opened. In a worker of its own, so that the 10,000 streams this process reads
 * do not delay the polls' own event loop: what is measured is the server.
 */
function pollWhile(url: string, count = Number.POSITIVE_INFINITY) {
  const worker = new Worker(
    `const { parentPort, workerData } = require("node:worker_threads");
    let running = true;
    const latencies = [];
    let left = workerData.count;
    let failed = 0;
    parentPort.on("message", () => (running = false));
    (async () => {
      while (running && left-- > 0) {
        const started = performance.now();
        try {
          const res = await fetch(workerData.url + "/api/client/features", {
            headers: { authorization: workerData.token },
            signal: AbortSignal.timeout(30000),
          });
          await res.arrayBuffer();
          if (res.ok) latencies.push(performance.now() - started);
          else failed++;
        } catch {
          failed++;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      parentPort.postMessage({ latencies, failed });
    })();`,
    { eval: true, workerData: { url, token: tokens.client, count } },
  );
  const result = new Promise<{ latencies: number[]; failed: number }>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  return {
    /** The polls, once `count` were made. */
    done: result.finally(() => worker.terminate()),
    async stop() {
      worker.postMessage("stop");
      return this.done;
    },
  };
}

/** " (3 × status 503, 1 × socket hang up)": how many failed for each reason. */
function reasons(failures: string[]): string {
  if (failures.length === 0) return "";
  const counts = new Map<string, number>();
  for (const reason of failures) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  return ` (${[...counts].map(([reason, n]) => `${n} × ${reason}`).join(", ")})`;
}

async function startMode(mode: "single" | "cluster"): Promise<{ vexil: VexilProcess; dispose(): Promise<void> }> {
  if (mode === "single") {
    const vexil = await startBenchVexil({
      readyTimeoutMs: 240_000,
      nodeArgs: process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${path.join(repoRoot, "test/bench/profiles")}`] : [],
    });
    return { vexil, dispose: () => vexil.stop() };
  }
  const { vexil, servers } = await startBenchCluster();
  return {
    vexil,
    async dispose() {
      await vexil.stop();
      for (const server of servers) await server.dispose();
    },
  };
}

/** Resident MiB per process: the whole tree in single mode, the gateway and frontend-eval in cluster mode. */
function memory(mode: "single" | "cluster", vexil: VexilProcess): Record<string, number> {
  if (mode === "single") return { process: residentMiB(vexil.child.pid!) };
  return { gateway: residentMiB(vexil.servicePid("gateway")), "frontend-eval": residentMiB(vexil.servicePid("frontend-eval")) };
}

const rows: string[] = [];
const loads: number[] = [loadavg()[0]!];
for (const mode of modes) {
  const { vexil, dispose } = await startMode(mode);
  let streams: SdkStream[] = [];
  try {
    const { admin } = adminOver(vexil.url, tokens.admin);
    await seedFlags(admin, 0, flags, await seedSegments(admin));
    await sleep(2_000); // the seeding's snapshots settle before the memory baseline
    const before = memory(mode, vexil);

    const idlePolls = (await pollWhile(vexil.url, 20).done).latencies;
    const polls = pollWhile(vexil.url);
    const openStarted = performance.now();
    const count = streamsFor(mode);
    const opened = await openSdkStreams(vexil.url, tokens.client, count, openConcurrency);
    const openSeconds = (performance.now() - openStarted) / 1000;
    const { latencies: pollLatencies, failed: pollsFailed } = await polls.stop();
    streams = opened.streams;
    await sleep(2_000);
    const after = memory(mode, vexil);

    const reach: number[] = [];
    const slowest: number[] = [];
    let missed = 0;
    for (let i = 0; i < changes; i++) {
      const marker = `"name":"stream-probe-${i}"`;
      for (const stream of streams) stream.watch(marker);
      const started = performance.now();
      await admin.createFeature(`stream-probe-${i}`);
      const deadline = started + 30_000;
      const live = streams.filter((s) => s.connectedAt !== undefined && s.droppedAt === undefined);
      while (live.some((s) => s.seen(marker) === undefined) && performance.now() < deadline) await sleep(5);
      const times = live
        .map((s) => s.seen(marker))
        .filter((t): t is number => t !== undefined)
        .map((t) => t - started);
      missed += live.length - times.length;
      reach.push(...times);
      slowest.push(Math.max(...times));
      await sleep(500);
    }
    const dropped = streams.filter((s) => s.droppedAt !== undefined && s.connectedAt !== undefined);
    loads.push(loadavg()[0]!);
    const open = count - opened.failures.length;
    const perStream = Object.entries(after)
      .map(([name, mib]) => `${name} ${(((mib - (before[name] ?? 0)) * 1024) / open).toFixed(1)} KiB`)
      .join(", ");
    const resident = Object.entries(after)
      .map(([name, mib]) => `${name} ${before[name]} → ${mib} MiB`)
      .join(", ");
    rows.push(
      `| ${mode} | ${open} of ${count} in ${openSeconds.toFixed(1)} s${reasons(opened.failures)} | ` +
        `idle: p50 ${percentile(idlePolls, 50).toFixed(0)} ms; during: ${pollLatencies.length} answered, ${pollsFailed} failed, ` +
        `p50 ${percentile(pollLatencies, 50).toFixed(0)} ms, p99 ${percentile(pollLatencies, 99).toFixed(0)} ms, slowest ${Math.max(...pollLatencies).toFixed(0)} ms | ` +
        `${resident}; ${perStream} | ` +
        `p50 ${percentile(reach, 50).toFixed(0)} ms, p99 ${percentile(reach, 99).toFixed(0)} ms, slowest ${Math.max(...slowest).toFixed(0)} ms | ` +
        `${dropped.length} dropped${reasons(dropped.map((s) => s.droppedBecause!))}, ${missed} changes missed |`,
    );
    console.log(rows.at(-1));
    // What the server said about it: its warnings and errors, each message once with its count.
    const said = parseLogLines(vexil.output()).filter((line) => Number(line.level) >= 40);
    console.log(
      reasons(said.map((line) => `${line.service ?? mode}: ${line.msg}${line.err?.code ? ` (${line.err.code})` : ""}`)) ||
        "(no warnings logged)",
    );
  } finally {
    for (const stream of streams) stream.close();
    await dispose();
  }
}

const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}`;
console.log(
  [
    "",
    `${new Date().toISOString()}; ${machine}; ${streamCount} streams on one client token (cluster mode: ${streamsFor("cluster")}, the gateway holding two descriptors each of its ${fdLimit}), ${flags} flags, ${changes} changes, ${openConcurrency} opening at once`,
    `load average (1 min) before and after each mode: ${loads.map((l) => l.toFixed(1)).join(", ")}`,
    "",
    "| mode | streams open | polls of /api/client/features: idle; while the streams opened | resident memory before → after; per open stream | a change reaching every stream | dropped |",
    "|---|---|---|---|---|---|",
    ...rows,
  ].join("\n"),
);
