/**
 * `npm run bench`: starts Vexil as its own process (`npm start`, embedded engines in a temp dir),
 * seeds 200 and then 2,000 flags of a realistic mix through the admin API, and measures with
 * autocannon (50 connections) `/api/frontend` for varying users and `/api/client/features` (full
 * payload and 304s; the full payload also with a body-discarding client), then the time from an
 * admin change to its visibility at `/api/frontend`, at `/api/client/features` and on a streaming
 * unleash-client. Prints a Markdown table.
 *
 * Environment: BENCH_DURATION (seconds per load run, default 10), BENCH_CHANGES (default 50),
 * BENCH_SIZES (flag counts, default 200,2000), BENCH_CPU_PROF=1 to write a V8 CPU profile of the server to test/bench/profiles/.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { cpus, tmpdir, totalmem } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Unleash, UnleashEvents } from "unleash-client";
import { tokenSecret } from "../src/tokens.js";
import {
  adminOver,
  connections,
  drainLoad,
  formatLoad,
  frontendShows,
  load,
  loadFrontend,
  percentile,
  seedFlags,
  seedSegments,
  until,
  type Admin,
} from "./workload.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const duration = Number(process.env.BENCH_DURATION ?? 10);
const changes = Number(process.env.BENCH_CHANGES ?? 50);
const sizes = (process.env.BENCH_SIZES ?? "200,2000").split(",").map(Number);

const tokens = {
  admin: tokenSecret("*", "*"),
  client: tokenSecret("*", "development"),
  frontend: tokenSecret("*", "development"),
};

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

async function startServer(dataDir: string, port: number): Promise<ChildProcess> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    INIT_ADMIN_API_TOKENS: tokens.admin,
    INIT_CLIENT_API_TOKENS: tokens.client,
    INIT_FRONTEND_API_TOKENS: tokens.frontend,
  };
  delete env.NATS_URL;
  delete env.REDIS_URL;
  delete env.MONGODB_URL;
  // `npm start`, or the same entry point under node directly when profiling (node refuses
  // --cpu-prof in NODE_OPTIONS). Its own process group, so the chain stops with one signal.
  const command = process.env.BENCH_CPU_PROF
    ? [
        "node",
        "--cpu-prof",
        `--cpu-prof-dir=${path.join(repoRoot, "test/bench/profiles")}`,
        "--import",
        "tsx",
        "--conditions=vexil-source",
        "services/gateway/src/main.ts",
      ]
    : ["npm", "start"];
  const child = spawn(command[0]!, command.slice(1), { cwd: repoRoot, env, detached: true, stdio: ["ignore", "ignore", "inherit"] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    try {
      const res = await fetch(`${url}/ready`);
      if (res.ok) return child;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("server did not become ready");
}

function stopServer(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    if (child.pid) process.kill(-child.pid, "SIGTERM");
  });
}

async function loadClientFeatures(url: string, extraHeaders: Record<string, string> = {}) {
  return load(`${url}/api/client/features`, duration, {
    headers: { authorization: tokens.client, "unleash-client-spec": "5.2.0", ...extraHeaders },
  });
}

async function measurePropagation(url: string, admin: Admin, probe: string) {
  await admin.createFeature(probe);
  await admin.addStrategy(probe, "development", { name: "default" });

  const sdk = new Unleash({
    appName: "bench-streaming",
    url: `${url}/api`,
    customHeaders: { Authorization: tokens.client },
    disableMetrics: true,
    backupPath: tmpdir(),
    experimentalMode: { type: "streaming" },
  });
  await new Promise((resolve) => sdk.once(UnleashEvents.Synchronized, resolve));

  let clientEtag = "";
  const clientHas = async (): Promise<boolean | undefined> => {
    const res = await fetch(`${url}/api/client/features?namePrefix=${probe}`, {
      headers: { authorization: tokens.client, "unleash-client-spec": "5.2.0", "if-none-match": clientEtag },
    });
    if (res.status === 304) return undefined;
    clientEtag = res.headers.get("etag") ?? "";
    const body = (await res.json()) as { features: Array<{ name: string; enabled: boolean }> };
    return body.features.find((f) => f.name === probe)?.enabled === true;
  };
  await clientHas();

  const timings = { frontend: [] as number[], client: [] as number[], streaming: [] as number[] };
  for (let i = 0; i < changes; i++) {
    const enabled = i % 2 === 0;
    const start = performance.now();
    const streamed = new Promise<number>((resolve) => {
      const onChange = () => {
        if (sdk.isEnabled(probe) === enabled) {
          sdk.off(UnleashEvents.Changed, onChange);
          resolve(performance.now() - start);
        }
      };
      sdk.on(UnleashEvents.Changed, onChange);
    });
    await admin.setEnabled(probe, "development", enabled);
    const [frontend, client, streaming] = await Promise.all([
      until(start, async () => (await frontendShows(url, tokens.frontend, probe)) === enabled),
      until(start, async () => (await clientHas()) === enabled),
      streamed,
    ]);
    timings.frontend.push(frontend);
    timings.client.push(client);
    timings.streaming.push(streaming);
  }
  sdk.destroy();
  const summary = (values: number[]) => ({ p50: percentile(values, 50), p99: percentile(values, 99) });
  return { frontend: summary(timings.frontend), client: summary(timings.client), streaming: summary(timings.streaming) };
}

async function payloadSize(url: string): Promise<number> {
  const res = await fetch(`${url}/api/client/features`, { headers: { authorization: tokens.client, "unleash-client-spec": "5.2.0" } });
  return (await res.arrayBuffer()).byteLength;
}

async function main() {
  const dataDir = await mkdtemp(path.join(tmpdir(), "vexil-bench-"));
  const port = await freePort();
  const server = await startServer(dataDir, port);
  const url = `http://127.0.0.1:${port}`;
  const { admin } = adminOver(url, tokens.admin);
  const rows: string[] = [];
  try {
    const segmentIds = await seedSegments(admin);
    let seeded = 0;
    for (const flags of sizes) {
      const previous = seeded;
      const seedStart = performance.now();
      await seedFlags(admin, seeded, flags, segmentIds);
      const seedSeconds = (performance.now() - seedStart) / 1000;
      console.error(`seeded ${flags - seeded} flags in ${seedSeconds.toFixed(1)} s`);
      seeded = flags;
      // Let the last rebuild land before measuring.
      await new Promise((resolve) => setTimeout(resolve, 1000));

      const frontend = await loadFrontend(url, tokens.frontend, duration);
      const full = await loadClientFeatures(url);
      const gzip = await loadClientFeatures(url, { "accept-encoding": "gzip" });
      const clientHeaders = { authorization: tokens.client, "unleash-client-spec": "5.2.0" };
      const fullDrained = await drainLoad(`${url}/api/client/features`, clientHeaders, duration);
      const gzipDrained = await drainLoad(`${url}/api/client/features`, { ...clientHeaders, "accept-encoding": "gzip" }, duration);
      const etag = (
        await fetch(`${url}/api/client/features`, { headers: { authorization: tokens.client, "unleash-client-spec": "5.2.0" } })
      ).headers.get("etag")!;
      const notModified = await loadClientFeatures(url, { "if-none-match": etag });
      const propagation = await measurePropagation(url, admin, `bench-probe-${flags}`);
      await admin.archive(`bench-probe-${flags}`);
      const bytes = await payloadSize(url);
      rows.push(
        `| ${flags} | \`/api/frontend\` (varying users) | ${formatLoad(frontend)} |`,
        `| ${flags} | \`/api/client/features\` full payload (${(bytes / 1024).toFixed(0)} kB) | ${formatLoad(full)} |`,
        `| ${flags} | \`/api/client/features\` full payload, gzip | ${formatLoad(gzip)} |`,
        `| ${flags} | \`/api/client/features\` full payload, body-discarding client | ${formatLoad(fullDrained)} |`,
        `| ${flags} | \`/api/client/features\` full payload, gzip, body-discarding client | ${formatLoad(gzipDrained)} |`,
        `| ${flags} | \`/api/client/features\` 304 | ${formatLoad(notModified)} |`,
        `| ${flags} | change visible at \`/api/frontend\` (${changes} changes) | p50 ${propagation.frontend.p50.toFixed(1)} ms, p99 ${propagation.frontend.p99.toFixed(1)} ms |`,
        `| ${flags} | change visible at \`/api/client/features\` | p50 ${propagation.client.p50.toFixed(1)} ms, p99 ${propagation.client.p99.toFixed(1)} ms |`,
        `| ${flags} | change visible on a streaming unleash-client | p50 ${propagation.streaming.p50.toFixed(1)} ms, p99 ${propagation.streaming.p99.toFixed(1)} ms |`,
        `| ${flags} | seeding through the admin API | ${flags - previous} flags in ${seedSeconds.toFixed(1)} s |`,
      );
      console.error(rows.slice(-10).join("\n"));
    }
  } finally {
    await stopServer(server);
    await rm(dataDir, { recursive: true, force: true });
  }
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}`;
  console.log(`Machine: ${machine}; ${new Date().toISOString()}; ${connections} connections, ${duration} s per run\n`);
  console.log("| flags | measurement | result |\n|---|---|---|");
  console.log(rows.join("\n"));
}

await main();
