/**
 * Vexil as users run it, in a child process: the compiled gateway under plain `node` (what
 * `npm start` and the images run), or the cluster the way `npm run start:cluster` starts it. Tests
 * talk to it only over HTTP; nothing of a service is imported here.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { waitFor } from "./servers.js";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const gatewayEntry = path.join(repoRoot, "services/gateway/dist/main.js");
const clusterEntry = path.join(repoRoot, "services/gateway/src/cluster.ts");

export interface VexilProcessOptions {
  /** `single` (default): the compiled gateway with every service inside; `cluster`: one process per service. */
  mode?: "single" | "cluster";
  /** Environment for the process, on top of the parent's (PORT and DATA_DIR are set here). */
  env?: Record<string, string | undefined>;
  /** Keep data between starts: pass the same dir to a second process. Removed on stop only when created here. */
  dataDir?: string;
  /** How long to wait for the gateway to answer /ready. */
  readyTimeoutMs?: number;
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
  /** SIGTERM and wait for exit (SIGKILL after a grace period); removes a data dir created here. */
  stop(): Promise<void>;
  /** SIGKILL the whole process group at once, as a crash would; keeps the data dir. */
  kill(): Promise<void>;
}

/** `count` consecutive free ports on loopback (the cluster derives the services' ports from its base). */
export async function freePortRange(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 40_000);
    const free = await Promise.all(Array.from({ length: count }, (_, i) => portIsFree(base + i)));
    if (free.every(Boolean)) return base;
  }
  throw new Error(`no ${count} consecutive free ports found`);
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

export async function startVexilProcess(options: VexilProcessOptions = {}): Promise<VexilProcess> {
  const mode = options.mode ?? "single";
  if (mode === "single" && !existsSync(gatewayEntry)) {
    throw new Error(`${gatewayEntry} is missing: run \`npm run build\` before the end-to-end tests`);
  }
  const ownDataDir = !options.dataDir;
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), "vexil-e2e-")));
  const port = await freePortRange(mode === "cluster" ? 5 : 1);
  const args = mode === "single" ? [gatewayEntry] : ["--import", "tsx", "--conditions=vexil-source", clusterEntry];
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: { ...process.env, LOG_LEVEL: "info", ...options.env, PORT: String(port), DATA_DIR: dataDir },
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group, so the cluster's children go down with it.
    detached: true,
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let running = true;
  void exited.then(() => (running = false));

  const url = `http://127.0.0.1:${port}`;
  const ready = await waitFor(async () => running && (await fetch(`${url}/ready`)).ok, options.readyTimeoutMs ?? 60_000, 200);
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // Already gone.
    }
  };
  const process_: VexilProcess = {
    url,
    port,
    dataDir,
    child,
    output: () => output,
    logLines: () =>
      output.split("\n").flatMap((line) => {
        const json = line.slice(line.indexOf("{"));
        if (!json.startsWith("{")) return [];
        try {
          return [JSON.parse(json) as Record<string, any>];
        } catch {
          return [];
        }
      }),
    async stop() {
      if (running) {
        signalGroup("SIGTERM");
        const timer = setTimeout(() => signalGroup("SIGKILL"), 10_000);
        await exited;
        clearTimeout(timer);
        // The cluster supervisor exits once its children have; anything left in the group goes now.
        signalGroup("SIGKILL");
      }
      if (ownDataDir) await rm(dataDir, { recursive: true, force: true });
    },
    async kill() {
      signalGroup("SIGKILL");
      await exited;
    },
  };
  if (!ready) {
    await process_.stop();
    throw new Error(`Vexil (${mode}) did not become ready at ${url}:\n${output.slice(-4000)}`);
  }
  return process_;
}
