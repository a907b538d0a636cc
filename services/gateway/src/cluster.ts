/**
 * `npm run start:cluster`: every service as its own process, as a deployment runs them, against
 * NATS and Redis (localhost by default) and MongoDB when MONGODB_URL is set. The gateway proxies
 * the public port to the others. A process that dies is started again, so killing one shows the
 * others recover; SIGTERM stops them all.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "@vexil/config";
import { clusterEnv } from "./config.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const config = loadConfig(clusterEnv, process.env);
const base = config.PORT;
const services = [
  { name: "admin", port: base + 1 },
  { name: "frontend-eval", port: base + 2 },
  { name: "signal-ingest", port: base + 3 },
  { name: "addon-delivery", port: base + 4 },
  { name: "gateway", port: base },
];
const shared = {
  NATS_URL: config.NATS_URL,
  REDIS_URL: config.REDIS_URL,
  GATEWAY_MODE: "cluster",
  ADMIN_URL: `http://127.0.0.1:${base + 1}`,
  FRONTEND_EVAL_URL: `http://127.0.0.1:${base + 2}`,
  SIGNAL_INGEST_URL: `http://127.0.0.1:${base + 3}`,
};

const children = new Map<string, ChildProcess>();
let stopping = false;

function prefixLines(name: string, stream: NodeJS.ReadableStream, out: NodeJS.WritableStream) {
  let pending = "";
  stream.on("data", (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) out.write(`[${name}] ${line}\n`);
  });
}

function start(name: string, port: number, restarts = 0) {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=vexil-source", path.join(root, "services", name, "src", "main.ts")],
    // Each child reads its settings through its own loadConfig: it gets this environment, with the cluster's addresses on top.
    { cwd: root, env: { ...process.env, ...shared, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] },
  );
  children.set(name, child);
  prefixLines(name, child.stdout!, process.stdout);
  prefixLines(name, child.stderr!, process.stderr);
  const startedAt = Date.now();
  child.on("exit", (code, signal) => {
    children.delete(name);
    if (stopping) return;
    // A process that keeps dying right away backs off instead of spinning.
    const attempt = Date.now() - startedAt > 10_000 ? 0 : restarts + 1;
    const delay = Math.min(500 * 2 ** attempt, 10_000);
    process.stderr.write(`[cluster] ${name} exited (${signal ?? code}); starting it again in ${delay} ms\n`);
    setTimeout(() => start(name, port, attempt), delay);
  });
}

for (const { name, port } of services) start(name, port);
process.stdout.write(
  `[cluster] gateway on http://localhost:${base}; ${services
    .filter((s) => s.name !== "gateway")
    .map((s) => `${s.name} on ${s.port}`)
    .join(", ")}\n`,
);

function stopAll(signal: NodeJS.Signals) {
  if (stopping) return;
  stopping = true;
  for (const child of children.values()) child.kill(signal);
  const waitForExit = setInterval(() => {
    if (children.size === 0) {
      clearInterval(waitForExit);
      process.exit(0);
    }
  }, 100);
}
process.on("SIGTERM", () => stopAll("SIGTERM"));
process.on("SIGINT", () => stopAll("SIGTERM"));
