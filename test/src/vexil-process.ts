/**
 * Vexil as users run it, in a child process: the compiled gateway under plain `node` (what
 * `npm start` and the images run), or the cluster the way `npm run start:cluster` starts it. Tests
 * talk to it only over HTTP; nothing of a service is imported here.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { appendFile, mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const gatewayEntry = path.join(repoRoot, "services/gateway/dist/main.js");
const clusterEntry = path.join(repoRoot, "services/gateway/src/cluster.ts");

/** The message every e2e entry point gives when the compiled output the images run is missing. */
export const missingBuildMessage = `${gatewayEntry} is missing: the end-to-end tests run the compiled output; run \`npm run build\` first (npm test does)`;

/**
 * When set (by `npm run test:e2e`), a directory where every process started here leaves the
 * requests it logged, one JSON line each, for the OpenAPI coverage check that runs after the suite.
 */
export const requestLogDirVariable = "VEXIL_E2E_REQUEST_LOG";

export type ServiceName = "admin" | "frontend-eval" | "signal-ingest" | "addon-delivery";
/** Where each service listens in cluster mode, from the gateway's port (as `npm run start:cluster` places them). */
const clusterPortOffsets: Record<ServiceName, number> = { admin: 1, "frontend-eval": 2, "signal-ingest": 3, "addon-delivery": 4 };
/** The supervisor's replica-count variables. */
const replicaVariables: Record<ServiceName, string> = {
  admin: "ADMIN_REPLICAS",
  "frontend-eval": "FRONTEND_EVAL_REPLICAS",
  "signal-ingest": "SIGNAL_INGEST_REPLICAS",
  "addon-delivery": "ADDON_DELIVERY_REPLICAS",
};
const serviceOrder = Object.keys(clusterPortOffsets) as ServiceName[];

/**
 * The port of replica `n` (1-based) of a service, as `npm run start:cluster` places them: the first
 * of each at base + 1 to 4, the others from base + 5 on, admin's first, then frontend-eval's, and so on.
 */
export function clusterPort(base: number, replicas: Partial<Record<ServiceName, number>>, service: ServiceName, n = 1): number {
  if (n === 1) return base + clusterPortOffsets[service];
  let port = base + 5;
  for (const other of serviceOrder) {
    if (other === service) return port + n - 2;
    port += (replicas[other] ?? 1) - 1;
  }
  throw new Error(`unknown service ${service}`);
}
/** Every process of the cluster, the gateway included. */
export type ClusterService = ServiceName | "gateway";

export interface VexilProcessOptions {
  /** `single` (default): the compiled gateway with every service inside; `cluster`: one process per service. */
  mode?: "single" | "cluster";
  /** Environment for the process, on top of the parent's (PORT and DATA_DIR are set here). */
  env?: Record<string, string | undefined>;
  /** Keep data between starts: pass the same dir to a second process. Removed on stop only when created here. */
  dataDir?: string;
  /** How long to wait for the gateway to answer /ready. */
  readyTimeoutMs?: number;
  /** What to wait for: `ready` (default), or `live` (/health: a start while a dependency is down). */
  until?: "ready" | "live";
  /** Options for node itself in single mode, before the entry point (`--cpu-prof`, which NODE_OPTIONS refuses). */
  nodeArgs?: string[];
  /** In cluster mode, processes per service (1 when not given). */
  replicas?: Partial<Record<ServiceName, number>>;
}

export interface LoggedRequest {
  method: string;
  url: string;
  status: number;
}

export interface VexilProcess {
  url: string;
  port: number;
  dataDir: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Each JSON log line written so far, parsed. */
  logLines(): Array<Record<string, any>>;
  /** The requests the process logged as answered (one line each at LOG_LEVEL=info). */
  requests(): LoggedRequest[];
  /** In cluster mode, the address of one service's own process, its replica `n` (1-based; the gateway proxies to it). */
  serviceUrl(service: ServiceName, n?: number): string;
  /** In cluster mode, the process id of one service's process, its replica `n` (as the supervisor runs it now). */
  servicePid(service: ClusterService, n?: number): number;
  /** In cluster mode, how many times the supervisor saw each service's process exit so far. */
  serviceExits(): Record<string, number>;
  /** SIGTERM and wait for exit (SIGKILL after a grace period); removes a data dir created here. */
  stop(): Promise<void>;
  /** SIGKILL the whole process group at once, as a crash would; keeps the data dir. */
  kill(): Promise<void>;
}

/** `count` consecutive free ports on loopback (the cluster derives the services' ports from its base). */
async function freePortRange(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 40_000);
    const free = await Promise.all(Array.from({ length: count }, (_, i) => portIsFree(base + i)));
    if (free.every(Boolean)) return base;
  }
  throw new Error(`no ${count} consecutive free ports found`);
}

/**
 * Starts a server on `count` consecutive free ports, and again on others when another process took
 * one between the check and the listen (tests and benchmarks start servers side by side), at most
 * five times: `lostPort` tells a try that failed that way, `discard` clears it away before the next.
 */
export async function startOnFreePorts<T>(
  count: number,
  start: (port: number) => Promise<T>,
  lostPort: (started: T) => boolean,
  discard: (started: T) => Promise<void>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const started = await start(await freePortRange(count));
    if (attempt === 5 || !lostPort(started)) return started;
    await discard(started);
  }
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** The JSON objects among output lines (the cluster prefixes each line with `[service] `). */
export function parseLogLines(output: string): Array<Record<string, any>> {
  return output.split("\n").flatMap((line) => {
    const start = line.indexOf("{");
    if (start < 0) return [];
    try {
      return [JSON.parse(line.slice(start)) as Record<string, any>];
    } catch {
      return [];
    }
  });
}

/** The request lines among log lines; in cluster mode only the gateway's, so each call counts once. */
function loggedRequests(output: string, mode: "single" | "cluster"): LoggedRequest[] {
  const lines = mode === "cluster" ? output.split("\n").filter((line) => line.startsWith("[gateway] ")) : [output];
  return parseLogLines(lines.join("\n")).flatMap((line) =>
    typeof line.req?.method === "string" && typeof line.res?.statusCode === "number"
      ? [{ method: line.req.method, url: line.req.url, status: line.res.statusCode }]
      : [],
  );
}

interface SpawnedProcess {
  child: ChildProcess;
  output(): string;
  running(): boolean;
  exited: Promise<void>;
  signalGroup(signal: NodeJS.Signals): void;
}

/** Groups still running, killed when this process exits so a stopped test run leaves none behind. */
const runningGroups = new Set<number>();
process.once("exit", () => {
  for (const pid of runningGroups) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
});

function spawnInGroup(args: string[], env: Record<string, string | undefined>): SpawnedProcess {
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group, so the cluster's children go down with it.
    detached: true,
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  let running = true;
  runningGroups.add(child.pid!);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  void exited.then(() => {
    running = false;
    runningGroups.delete(child.pid!);
  });
  return {
    child,
    output: () => output,
    running: () => running,
    exited,
    signalGroup(signal) {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // Already gone.
      }
    },
  };
}

/** Whether the process (or a service of the cluster) could not listen because its port was taken. */
const portTaken = (spawned: SpawnedProcess) => spawned.output().includes("EADDRINUSE");

/**
 * Whether a process of the spawned group holds the port. Vexil binds its port only once it serves,
 * so until then another test's server may hold that port and answer in its place.
 */
function listensOn(spawned: SpawnedProcess, port: number): boolean {
  const listing = spawnSync("ss", ["-ltnpH", `sport = :${port}`], { encoding: "utf8" });
  // Without iproute2 there is no telling; the answer is taken as this process's, as before.
  if (listing.error) return true;
  return [...listing.stdout.matchAll(/pid=(\d+)/g)].some(([, pid]) => processGroupOf(Number(pid)) === spawned.child.pid);
}

function processGroupOf(pid: number): number | undefined {
  try {
    // "pid (comm) state ppid pgrp ...": comm may hold spaces, so read after the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
  } catch {
    return undefined; // gone meanwhile
  }
}

/**
 * Polls /ready (or /health) until it answers 200; false when the time is up, the process exited (a
 * bad setting, a crash) or its port was taken (the answer would then come from another process).
 */
async function untilReady(
  url: string,
  spawned: SpawnedProcess,
  timeoutMs: number,
  path = "/ready",
  { everyReplica = false } = {},
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (spawned.running() && !portTaken(spawned) && Date.now() < deadline) {
    if (
      listensOn(spawned, Number(new URL(url).port)) &&
      (await fetch(`${url}${path}`).then(
        (res) => res.ok,
        () => false,
      )) &&
      (!everyReplica || (await everyReplicaReady(url)))
    )
      return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

/**
 * The cluster gateway is ready once any surface is; a test wants them all: every replica the gateway
 * routes to says ready (in its /health details).
 */
async function everyReplicaReady(url: string): Promise<boolean> {
  try {
    const { details } = (await (await fetch(`${url}/health`)).json()) as {
      details?: { surfaces?: Record<string, Array<{ ready: boolean }>> };
    };
    return Object.values(details?.surfaces ?? {}).every((replicas) => replicas.every((r) => r.ready));
  } catch {
    return false;
  }
}

async function stopGroup(spawned: SpawnedProcess): Promise<void> {
  if (!spawned.running()) return;
  spawned.signalGroup("SIGTERM");
  const timer = setTimeout(() => spawned.signalGroup("SIGKILL"), 10_000);
  await spawned.exited;
  clearTimeout(timer);
  // The cluster supervisor exits once its children have; anything left in the group goes now.
  spawned.signalGroup("SIGKILL");
}

async function keepRequestLog(requests: LoggedRequest[]): Promise<void> {
  const dir = process.env[requestLogDirVariable];
  if (!dir || requests.length === 0) return;
  await appendFile(path.join(dir, `${process.pid}-${randomUUID()}.jsonl`), requests.map((r) => JSON.stringify(r)).join("\n") + "\n");
}

export async function startVexilProcess(options: VexilProcessOptions = {}): Promise<VexilProcess> {
  const mode = options.mode ?? "single";
  if (mode === "single" && !existsSync(gatewayEntry)) throw new Error(missingBuildMessage);
  const ownDataDir = !options.dataDir;
  let dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), "vexil-e2e-")));
  const replicas = options.replicas ?? {};
  const replicaEnv = Object.fromEntries(
    Object.entries(replicas).map(([service, count]) => [replicaVariables[service as ServiceName], String(count)]),
  );
  const args =
    mode === "single" ? [...(options.nodeArgs ?? []), gatewayEntry] : ["--import", "tsx", "--conditions=vexil-source", clusterEntry];
  const { port, spawned, ready } = await startOnFreePorts(
    mode === "cluster" ? 5 + Object.values(replicas).reduce((sum, count) => sum + count - 1, 0) : 1,
    async (port) => {
      const spawned = spawnInGroup(args, {
        LOG_LEVEL: "info",
        SDK_REQUEST_LOG_LEVEL: "info",
        ...replicaEnv,
        ...options.env,
        PORT: String(port),
        DATA_DIR: dataDir,
      });
      const ready = await untilReady(
        `http://127.0.0.1:${port}`,
        spawned,
        options.readyTimeoutMs ?? (mode === "cluster" ? 240_000 : 120_000),
        options.until === "live" ? "/health" : "/ready",
        { everyReplica: mode === "cluster" && options.until !== "live" },
      );
      return { port, spawned, ready };
    },
    (started) => !started.ready && portTaken(started.spawned),
    // The next try starts from an empty data dir when it is this start's own.
    async (started) => {
      await stopGroup(started.spawned);
      if (ownDataDir) {
        await rm(dataDir, { recursive: true, force: true });
        dataDir = await mkdtemp(path.join(tmpdir(), "vexil-e2e-"));
      }
    },
  );
  const url = `http://127.0.0.1:${port}`;
  let logKept = false;
  const keepLog = async () => {
    if (logKept) return;
    logKept = true;
    await keepRequestLog(loggedRequests(spawned.output(), mode));
  };
  const vexil: VexilProcess = {
    url,
    port,
    dataDir,
    child: spawned.child,
    output: spawned.output,
    logLines: () => parseLogLines(spawned.output()),
    requests: () => loggedRequests(spawned.output(), mode),
    serviceUrl(service, n = 1) {
      if (mode !== "cluster") throw new Error("serviceUrl is for cluster mode");
      return `http://127.0.0.1:${clusterPort(port, replicas, service, n)}`;
    },
    servicePid(service, n = 1) {
      if (mode !== "cluster") throw new Error("servicePid is for cluster mode");
      const found = execFileSync("pgrep", ["-P", String(spawned.child.pid), "-f", `services/${service}/src/main.ts`], { encoding: "utf8" });
      const pids = found.trim().split("\n").map(Number);
      if (service === "gateway") return pids[0]!;
      // Replicas differ only by the PORT the supervisor gave each.
      const wanted = `PORT=${clusterPort(port, replicas, service, n)}`;
      const pid = pids.find((candidate) => {
        try {
          return readFileSync(`/proc/${candidate}/environ`, "utf8").split("\0").includes(wanted);
        } catch {
          return false;
        }
      });
      if (pid === undefined) throw new Error(`no ${service} process with ${wanted}`);
      return pid;
    },
    serviceExits() {
      const exits: Record<string, number> = {};
      for (const [, name] of spawned.output().matchAll(/^\[cluster\] (\S+) exited/gm)) exits[name!] = (exits[name!] ?? 0) + 1;
      return exits;
    },
    async stop() {
      await stopGroup(spawned);
      await keepLog();
      if (ownDataDir) await rm(dataDir, { recursive: true, force: true });
    },
    async kill() {
      spawned.signalGroup("SIGKILL");
      await spawned.exited;
      await keepLog();
    },
  };
  if (!ready) {
    await vexil.stop();
    throw new Error(`Vexil (${mode}) did not become ready at ${url}:\n${spawned.output().slice(-4000)}`);
  }
  return vexil;
}

export interface ServiceProcess {
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * One service on its own, as a deployment adds a replica: `services/<name>/src/main.ts` started the
 * way the cluster supervisor starts it. The caller gives the shared NATS, Redis and namespace.
 */
export async function startServiceProcess(
  service: ServiceName,
  { env, dataDir }: { env: Record<string, string | undefined>; dataDir: string },
): Promise<ServiceProcess> {
  const port = await freePortRange(1);
  const entry = path.join(repoRoot, "services", service, "src/main.ts");
  const spawned = spawnInGroup(["--import", "tsx", "--conditions=vexil-source", entry], {
    LOG_LEVEL: "warn",
    ...env,
    PORT: String(port),
    DATA_DIR: dataDir,
  });
  const url = `http://127.0.0.1:${port}`;
  const ready = await untilReady(url, spawned, 120_000);
  const started: ServiceProcess = { url, output: spawned.output, stop: () => stopGroup(spawned) };
  if (!ready) {
    await started.stop();
    throw new Error(`${service} did not become ready at ${url}:\n${spawned.output().slice(-4000)}`);
  }
  return started;
}
