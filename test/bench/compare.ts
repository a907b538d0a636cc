/**
 * `npm run bench:compare`: Unleash 8.2.0 (installed into a git-ignored folder, against the local
 * PostgreSQL, its SDK rate limits lifted) and Vexil (the built gateway under plain node, embedded
 * defaults) side by side on one machine. Both get the same flags through their admin API; the
 * run checks that `/api/frontend` gives the same answers on both for the same contexts, then
 * measures each path on both in turn (Unleash, Vexil, Unleash, Vexil, ...) and prints the ratios.
 * Each measurement starts with a short unmeasured run on both (the JIT, caches built on first use;
 * for change visibility, 10 unmeasured changes), and each run waits until the machine is idle, so
 * that no run pays for work the other server left behind (answers still being written to clients
 * that gave up, its timers, its database).
 *
 * Environment: BENCH_DURATION (seconds per load run, default 10), BENCH_WARMUP (seconds of the
 * unmeasured run, default 3), BENCH_ROUNDS (default 2), BENCH_SIZES (default 200,2000),
 * BENCH_CHANGES (default 100), BENCH_CONTEXTS (default 200).
 */
import { readFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import path from "node:path";
import { startReferenceUnleash, referenceUnleashVersion } from "../src/reference-unleash.js";
import { gatewayEntry, repoRoot } from "../src/vexil-process.js";
import {
  benchTokens as tokens,
  startBenchVexil,
  adminOver,
  connections,
  drainLoad,
  frontendContext,
  load,
  loadFrontend,
  measureFrontendVisibility,
  measureWrites,
  pool,
  residentMiB,
  seedFlags,
  seedSegments,
  type Admin,
  type LoadResult,
} from "./workload.js";

const duration = Number(process.env.BENCH_DURATION ?? 10);
const warmup = Number(process.env.BENCH_WARMUP ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const sizes = (process.env.BENCH_SIZES ?? "200,2000").split(",").map(Number);
const changes = Number(process.env.BENCH_CHANGES ?? 100);
/** Unmeasured changes before them, like the warm-up of every other measurement. */
const warmupChanges = 10;
const contexts = Number(process.env.BENCH_CONTEXTS ?? 200);

const clientHeaders = { authorization: tokens.client, "unleash-client-spec": "5.2.0" };
/** The official Node SDK fetches through minipass-fetch, which asks for compression unless told not to. */
const sdkClientHeaders = { ...clientHeaders, "accept-encoding": "gzip,deflate" };

interface Target {
  name: "Unleash" | "Vexil";
  url: string;
  pid: number;
  admin: Admin;
  segmentIds: number[];
}

interface FrontendAnswer {
  toggles: Array<{ name: string; enabled: boolean; variant: { name: string; enabled: boolean; payload?: unknown } }>;
}

interface FlagAnswer {
  enabled: boolean;
  variant: string;
  variantEnabled: boolean;
  payload?: unknown;
}

/** What an SDK would act on: each listed flag with its variant. */
async function frontendAnswer(target: Target, context: string): Promise<Map<string, string>> {
  const res = await fetch(`${target.url}/api/frontend?${context}`, { headers: { authorization: tokens.frontend } });
  if (!res.ok) throw new Error(`${target.name} /api/frontend: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as FrontendAnswer;
  return new Map(
    body.toggles.map((t) => {
      const answer: FlagAnswer = {
        enabled: t.enabled,
        variant: t.variant.name,
        variantEnabled: t.variant.enabled,
        payload: t.variant.payload,
      };
      return [t.name, JSON.stringify(answer)];
    }),
  );
}

/** The first flag answered differently, with both answers; undefined when all agree. */
function firstDifference(unleash: Map<string, string>, vexil: Map<string, string>): string | undefined {
  for (const name of new Set([...unleash.keys(), ...vexil.keys()])) {
    if (unleash.get(name) !== vexil.get(name))
      return `${name}: Unleash ${unleash.get(name) ?? "(not listed)"}, Vexil ${vexil.get(name) ?? "(not listed)"}`;
  }
  return undefined;
}

/**
 * Contexts whose answers differ between the two, each with its first differing flag. Unleash
 * refreshes its frontend cache on a timer (500 ms here), so a difference is asked again for a
 * few seconds before it counts.
 */
async function differingContexts(unleash: Target, vexil: Target): Promise<string[]> {
  const differing: string[] = [];
  await pool(
    Array.from({ length: contexts }, (_, i) => frontendContext(i * 37)),
    8,
    async (context) => {
      let difference: string | undefined;
      for (let attempt = 0; attempt < 10; attempt++) {
        difference = firstDifference(await frontendAnswer(unleash, context), await frontendAnswer(vexil, context));
        if (!difference) return;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      differing.push(`${context} → ${difference}`);
    },
  );
  return differing;
}

interface Row {
  measurement: string;
  unleash: string;
  vexil: string;
  ratio: string;
  target: string;
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** Busy and total CPU time of the whole machine so far, in clock ticks (`/proc/stat`). */
function machineTicks(): { busy: number; total: number } {
  const [user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync("/proc/stat", "utf8")
    .split("\n")[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const busy = user! + nice! + system! + irq! + softirq! + steal!;
  return { busy, total: busy + idle! + iowait! };
}

/**
 * Waits until the machine is idle: under a tenth of a core busy over half a second (at most 30 s;
 * Unleash runs jobs on timers, PostgreSQL vacuums after a seeding). Returns the seconds waited.
 */
async function untilIdle(): Promise<number> {
  const started = performance.now();
  for (;;) {
    const before = machineTicks();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = machineTicks();
    const busyCores = ((after.busy - before.busy) / (after.total - before.total)) * cpus().length;
    if (busyCores < 0.1 || performance.now() - started > 30_000) return (performance.now() - started) / 1000;
  }
}

/**
 * Runs `measure` on both targets in turn, `rounds` times each after an unmeasured warm-up run of
 * each, every run from idle, and compares the mean throughput.
 */
async function sideBySide(
  targets: [Target, Target],
  measurement: string,
  minimumRatio: number | undefined,
  measure: (target: Target, seconds: number) => Promise<LoadResult | undefined>,
): Promise<Row> {
  const results: Record<string, LoadResult[]> = { Unleash: [], Vexil: [] };
  for (const target of targets) {
    await untilIdle();
    await measure(target, warmup);
  }
  for (let round = 0; round < rounds; round++) {
    for (const target of targets) {
      const waited = await untilIdle();
      const result = await measure(target, duration);
      if (result) results[target.name]!.push(result);
      console.error(
        `  ${measurement}, ${target.name}, round ${round + 1}: ${result ? describe(result) : "not offered"} (after ${waited.toFixed(1)} s until idle)`,
      );
    }
  }
  const summary = (list: LoadResult[]) =>
    list.length ? `${Math.round(mean(list.map((r) => r.rps)))}/s, p99 ${Math.max(...list.map((r) => r.p99))} ms` : "n/a";
  const failures = (list: LoadResult[]) => list.reduce((sum, r) => sum + r.failed + r.errors, 0);
  // Vexil's failures fail the target; Unleash's (requests it timed out under the load) are shown, its rate counts what it answered.
  const vexilFailed = failures(results.Vexil!) > 0;
  const unleashFailed = failures(results.Unleash!);
  const ratio =
    results.Unleash!.length && results.Vexil!.length
      ? mean(results.Vexil!.map((r) => r.rps)) / mean(results.Unleash!.map((r) => r.rps))
      : undefined;
  return {
    measurement,
    unleash: `${summary(results.Unleash!)}${unleashFailed ? `, ${unleashFailed} failed` : ""}`,
    vexil: `${summary(results.Vexil!)}${vexilFailed ? `, ${failures(results.Vexil!)} failed` : ""}`,
    ratio: ratio === undefined ? "n/a" : `${ratio.toFixed(1)}×`,
    target:
      minimumRatio === undefined
        ? ""
        : `≥ ${minimumRatio}× — ${ratio !== undefined && ratio >= minimumRatio && !vexilFailed ? "met" : "**not met**"}`,
  };
}

const describe = (r: LoadResult) =>
  `${r.rps}/s, p50 ${r.p50} ms, p99 ${r.p99} ms${r.failed || r.errors ? `, ${r.failed} failed, ${r.errors} errors` : ""}`;

async function etagOf(target: Target): Promise<string | undefined> {
  const res = await fetch(`${target.url}/api/client/features`, { headers: clientHeaders });
  await res.arrayBuffer();
  return res.headers.get("etag") ?? undefined;
}

async function main() {
  const loadAverages = [loadavg()[0]!];

  const reference = await startReferenceUnleash({
    adminTokens: [tokens.admin],
    clientTokens: [tokens.client],
    frontendTokens: [tokens.frontend],
  });
  const vexil = await startBenchVexil();
  const targets: [Target, Target] = [
    { name: "Unleash", url: reference.url, pid: reference.child.pid!, admin: adminOver(reference.url, tokens.admin).admin, segmentIds: [] },
    { name: "Vexil", url: vexil.url, pid: vexil.child.pid!, admin: adminOver(vexil.url, tokens.admin).admin, segmentIds: [] },
  ];
  const rows: Row[] = [];
  const memory: string[] = [];
  let differences = 0;
  try {
    for (const target of targets) target.segmentIds = await seedSegments(target.admin);
    let seeded = 0;
    for (const flags of sizes) {
      for (const target of targets) {
        const start = performance.now();
        await seedFlags(target.admin, seeded, flags, target.segmentIds);
        console.error(`${target.name}: seeded ${flags - seeded} flags in ${((performance.now() - start) / 1000).toFixed(1)} s`);
      }
      seeded = flags;
      const differing = await differingContexts(...targets);
      differences += differing.length;
      console.error(
        `${flags} flags: ${contexts - differing.length} of ${contexts} contexts answered the same${differing.length ? `; differing:\n  ${differing.slice(0, 5).join("\n  ")}` : ""}`,
      );
      memory.push(`| ${flags} | ${residentMiB(targets[0].pid)} MiB | ${residentMiB(targets[1].pid)} MiB |`);

      rows.push(
        await sideBySide(targets, `${flags} flags: \`/api/frontend\`, a different user each request`, 10, (t, seconds) =>
          loadFrontend(t.url, tokens.frontend, seconds),
        ),
      );
      rows.push(
        await sideBySide(
          targets,
          `${flags} flags: \`/api/client/features\` full payload as the Node SDK asks for it (gzip, body-discarding client)`,
          flags >= 2000 ? 15 : undefined,
          (t, seconds) => drainLoad(`${t.url}/api/client/features`, sdkClientHeaders, seconds),
        ),
      );
      rows.push(
        await sideBySide(
          targets,
          `${flags} flags: \`/api/client/features\` full payload without Accept-Encoding (body-discarding client)`,
          undefined,
          (t, seconds) => drainLoad(`${t.url}/api/client/features`, clientHeaders, seconds),
        ),
      );
      rows.push(
        await sideBySide(targets, `${flags} flags: \`/api/client/features\` 304 (If-None-Match)`, 5, async (t, seconds) => {
          const etag = await etagOf(t);
          // No body to read: autocannon costs the load generator less per request than node's http client here.
          return etag ? load(`${t.url}/api/client/features`, seconds, { headers: { ...clientHeaders, "if-none-match": etag } }) : undefined;
        }),
      );
      rows.push(
        await sideBySide(targets, `${flags} flags: admin writes (switch a flag on/off, 8 at a time)`, 3, (t, seconds) =>
          measureWrites(t.admin, flags, { seconds }),
        ),
      );
      for (const target of targets) {
        await untilIdle();
        const visible = await measureFrontendVisibility(
          target.url,
          target.admin,
          tokens.frontend,
          `bench-probe-${flags}`,
          changes,
          warmupChanges,
        );
        rows.push({
          measurement: `${flags} flags: change visible at \`/api/frontend\`, ${target.name} (${changes} changes)`,
          unleash: target.name === "Unleash" ? `p50 ${visible.p50.toFixed(1)} ms, p99 ${visible.p99.toFixed(1)} ms` : "",
          vexil: target.name === "Vexil" ? `p50 ${visible.p50.toFixed(1)} ms, p99 ${visible.p99.toFixed(1)} ms` : "",
          ratio: "",
          target: target.name === "Vexil" ? `p99 < 50 ms — ${visible.p99 < 50 ? "met" : "**not met**"}` : "",
        });
        await target.admin.archive(`bench-probe-${flags}`);
      }
    }
  } finally {
    loadAverages.push(loadavg()[0]!);
    await Promise.allSettled([reference.stop(), vexil.stop()]);
  }
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}`;
  console.log(
    `Machine: ${machine}; ${new Date().toISOString()}; load average ${loadAverages.map((l) => l.toFixed(1)).join(" → ")}; ` +
      `${connections} connections, ${duration} s per run, ${rounds} rounds; Unleash ${referenceUnleashVersion} vs Vexil (${path.relative(repoRoot, gatewayEntry)})\n`,
  );
  console.log(`Answers compared: ${sizes.length * contexts} contexts at /api/frontend, ${differences} differing\n`);
  console.log("| measurement | Unleash | Vexil | Vexil ÷ Unleash | target |\n|---|---|---|---|---|");
  for (const row of rows) console.log(`| ${row.measurement} | ${row.unleash} | ${row.vexil} | ${row.ratio} | ${row.target} |`);
  console.log("\n| flags | Unleash resident memory | Vexil resident memory |\n|---|---|---|");
  console.log(memory.join("\n"));
  if (differences > 0) process.exitCode = 1;
}

await main();
