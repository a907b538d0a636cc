/**
 * `npm run bench:scale`: how Vexil (the built gateway, single mode, embedded store) behaves as the
 * number of flags grows. Seeds flags of the benchmark mix through the admin API (create, strategy,
 * switch on: three writes a flag, 8 writers) up to the largest size and reports, at each size:
 * seeding writes/s, admin write latency and writes/s (switching flags off and on), resident memory of
 * the process, `/api/frontend` and `/api/client/features` requests/s, the time until a change is
 * visible at `/api/frontend`, and the time and size of the admin list endpoints (the paged search
 * and the full project list). Prints Markdown tables.
 *
 * Flag counts: the first argument (`npm run bench:scale -- 1000,50000`) or BENCH_SCALE_SIZES (default
 * 200,1000,2000,10000,20000,50000). Environment:
 * BENCH_WRITES (switches measured at each size, default 400), BENCH_LOAD_SIZES (sizes at which the
 * SDK paths are loaded, default 20000), BENCH_DURATION (seconds per load run, default 10),
 * BENCH_CHANGES (default 30), BENCH_CPU_PROF=1 (a V8 CPU profile of the server in test/bench/profiles/),
 * BENCH_MODE=cluster (one process per service, as `npm run start:cluster` runs them, against the
 * local NATS and Redis: the resident memory is then given for each service's process).
 */
import { cpus, loadavg, totalmem } from "node:os";
import path from "node:path";
import { repoRoot, type ClusterService } from "../src/vexil-process.js";
import {
  benchTokens as tokens,
  startBenchVexil,
  adminOver,
  connections,
  drainLoad,
  formatLoad,
  loadFrontend,
  measureFrontendVisibility,
  measureWrites,
  residentMiB,
  seedFlags,
  seedSegments,
} from "./workload.js";

const numbers = (value: string) => value.split(",").filter(Boolean).map(Number);
// `npm run bench:scale -- 1000,50000` or BENCH_SCALE_SIZES; the last size is where a change's visibility is timed.
const sizes = numbers(process.argv[2] ?? process.env.BENCH_SCALE_SIZES ?? "200,1000,2000,10000,20000,50000");
if (sizes.length === 0 || sizes.some((size, i) => !Number.isInteger(size) || size < 1 || size <= (sizes[i - 1] ?? 0))) {
  throw new Error(`flag counts must be whole numbers in increasing order, e.g. 1000,10000,50000; got ${sizes.join(",")}`);
}
const loadSizes = new Set(numbers(process.env.BENCH_LOAD_SIZES ?? "20000"));
const writes = Number(process.env.BENCH_WRITES ?? 400);
const duration = Number(process.env.BENCH_DURATION ?? 10);
const changes = Number(process.env.BENCH_CHANGES ?? 30);
const mode = process.env.BENCH_MODE === "cluster" ? "cluster" : "single";
const clusterServices: ClusterService[] = ["gateway", "admin", "frontend-eval", "signal-ingest", "addon-delivery"];

const clientHeaders = { authorization: tokens.client, "unleash-client-spec": "5.2.0" };

/** Time and size of one admin GET, and how many items (`field` of the answer: flags or events) it listed. */
async function timedList(url: string, pathname: string, field: "features" | "events" = "features") {
  const start = performance.now();
  const res = await fetch(`${url}${pathname}`, { headers: { authorization: tokens.admin } });
  const text = await res.text();
  const ms = performance.now() - start;
  if (!res.ok) throw new Error(`${pathname}: ${res.status} ${text.slice(0, 200)}`);
  const listed = (JSON.parse(text) as Record<string, unknown[]>)[field]!.length;
  return `${ms.toFixed(0)} ms, ${(text.length / 1024).toFixed(0)} kB, ${listed} ${field === "features" ? "flags" : "events"}`;
}

const load1 = () => loadavg()[0]!.toFixed(1);

async function main() {
  const vexil = await startBenchVexil({
    mode,
    nodeArgs: process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${path.join(repoRoot, "test/bench/profiles")}`] : [],
    readyTimeoutMs: 300_000,
  });
  const { admin } = adminOver(vexil.url, tokens.admin);
  const rows: string[] = [];
  const row = (flags: number, measurement: string, result: string) => {
    rows.push(`| ${flags.toLocaleString("en")} | ${measurement} | ${result} | ${load1()} |`);
    console.error(rows.at(-1));
  };
  try {
    const segmentIds = await seedSegments(admin);
    let seeded = 0;
    for (const flags of sizes) {
      const start = performance.now();
      await seedFlags(admin, seeded, flags, segmentIds);
      const seconds = (performance.now() - start) / 1000;
      const seedingWrites = (flags - seeded) * 3 - Math.floor(flags / 5) + Math.floor(seeded / 5);
      row(
        flags,
        "seeding (create, strategy, on; 8 writers)",
        `${flags - seeded} flags in ${seconds.toFixed(1)} s, ${Math.round(seedingWrites / seconds)} writes/s`,
      );
      seeded = flags;
      const switches = await measureWrites(admin, flags, { writes });
      row(
        flags,
        `admin writes (${writes} switches, 8 writers)`,
        `${switches.rps} writes/s, p50 ${switches.p50} ms, p99 ${switches.p99} ms`,
      );
      // frontend-eval compiles an environment's snapshot when an SDK first asks for it: memory is measured as SDKs see it.
      await Promise.all([
        fetch(`${vexil.url}/api/frontend?userId=1`, { headers: { authorization: tokens.frontend } }).then((res) => res.arrayBuffer()),
        fetch(`${vexil.url}/api/client/features`, { headers: clientHeaders }).then((res) => res.arrayBuffer()),
      ]);
      if (mode === "cluster") {
        const perService = clusterServices.map((service) => `${service} ${residentMiB(vexil.servicePid(service))} MiB`);
        row(flags, "resident memory of each process", perService.join(", "));
      } else row(flags, "resident memory", `${residentMiB(vexil.child.pid!)} MiB`);
      row(flags, "`GET /api/admin/search/features?limit=50` (paged)", await timedList(vexil.url, "/api/admin/search/features?limit=50"));
      row(
        flags,
        "`GET /api/admin/search/features?limit=50&offset=<half>` (a page in the middle)",
        await timedList(vexil.url, `/api/admin/search/features?limit=50&offset=${Math.floor(flags / 2)}`),
      );
      row(
        flags,
        "`GET /api/admin/search/events?limit=50` (paged)",
        await timedList(vexil.url, "/api/admin/search/events?limit=50", "events"),
      );
      row(
        flags,
        "`GET /api/admin/projects/default/features` (not paged)",
        await timedList(vexil.url, "/api/admin/projects/default/features"),
      );
      if (loadSizes.has(flags)) {
        row(flags, "`/api/frontend` (varying users)", formatLoad(await loadFrontend(vexil.url, tokens.frontend, duration)));
        const full = await drainLoad(`${vexil.url}/api/client/features`, { ...clientHeaders, "accept-encoding": "gzip" }, duration);
        row(flags, "`/api/client/features` full payload, gzip, body-discarding client", formatLoad(full));
      }
      if (flags === sizes.at(-1)) {
        const visible = await measureFrontendVisibility(vexil.url, admin, tokens.frontend, `bench-probe-${flags}`, changes);
        row(
          flags,
          `change visible at \`/api/frontend\` (${changes} changes)`,
          `p50 ${visible.p50.toFixed(1)} ms, p99 ${visible.p99.toFixed(1)} ms`,
        );
      }
    }
  } catch (err) {
    // A server that went away says why in its own output, which the run otherwise discards.
    console.error(
      `server exit code ${vexil.child.exitCode ?? "none (still running)"}, signal ${vexil.child.signalCode ?? "none"}; its last output:`,
    );
    console.error(vexil.output().slice(-4000));
    throw err;
  } finally {
    await vexil.stop();
  }
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}`;
  console.log(`Machine: ${machine}; ${new Date().toISOString()}; ${connections} connections, ${duration} s per load run\n`);
  console.log("| flags | measurement | result | load average (1 min) |\n|---|---|---|---|");
  console.log(rows.join("\n"));
}

await main();
