/**
 * `npm run start:cluster`: every service as its own process, as a deployment runs them, against
 * NATS and Redis (localhost by default) and MongoDB when MONGODB_URL is set. The gateway proxies
 * the public port to the others. A process that dies is started again, so killing one shows the
 * others recover; SIGTERM stops them all.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { hostname } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "@vexil/config";
import { clusterEnv } from "./config.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const config = loadConfig(clusterEnv, process.env);
const base = config.PORT;

/**
 * The surfaces and how many replicas of each. A service that owns an embedded store cannot run
 * twice: one process holds its data directory (its journal), and replicas of admin, signal-ingest
 * and addon-delivery share their data through the store (MongoDB): admin's model, the signal ids
 * and the received-signal list, addon-delivery's queue, leases and delivery log.
 */
const counts = {
  admin: config.ADMIN_REPLICAS,
  "frontend-eval": config.FRONTEND_EVAL_REPLICAS,
  "signal-ingest": config.SIGNAL_INGEST_REPLICAS,
  "addon-delivery": config.ADDON_DELIVERY_REPLICAS,
} as const;
const storeOwners = ["admin", "signal-ingest", "addon-delivery"] as const;
const refused = storeOwners.filter((service) => counts[service] > 1);
if (!config.MONGODB_URL && refused.length > 0) {
  process.stderr.write(
    `[cluster] ${refused.map((s) => `${s} (${counts[s]})`).join(", ")}: several replicas of a service that keeps data need MONGODB_URL. ` +
      "On the embedded store one process owns each service's data directory; replicas share their data through MongoDB. " +
      "frontend-eval keeps nothing and takes any FRONTEND_EVAL_REPLICAS.\n",
  );
  process.exit(1);
}

interface Process {
  /** The supervisor's name for it: the service, with `-<n>` from its second replica on. */
  name: string;
  service: string;
  port: number;
  env: Record<string, string>;
}
// The first replica of each service keeps the port it always had (base + 1 to 4); the others follow base + 4.
let nextPort = base + 5;
const services: Process[] = (Object.keys(counts) as Array<keyof typeof counts>).flatMap((service, i) =>
  Array.from({ length: counts[service] }, (_, replica): Process => {
    const name = replica === 0 ? service : `${service}-${replica + 1}`;
    const env: Record<string, string> =
      service === "addon-delivery" && counts[service] > 1
        ? { ADDONS_REPLICA_ID: `${process.env.ADDONS_REPLICA_ID ?? hostname()}-${name}` }
        : {};
    return { name, service, port: replica === 0 ? base + 1 + i : nextPort++, env };
  }),
);
const addresses = (service: string) =>
  services
    .filter((s) => s.service === service)
    .map((s) => `http://127.0.0.1:${s.port}`)
    .join(",");
services.push({ name: "gateway", service: "gateway", port: base, env: {} });
const shared = {
  NATS_URL: config.NATS_URL,
  REDIS_URL: config.REDIS_URL,
  GATEWAY_MODE: "cluster",
  ADMIN_URL: addresses("admin"),
  FRONTEND_EVAL_URL: addresses("frontend-eval"),
  SIGNAL_INGEST_URL: addresses("signal-ingest"),
};

/**
 * TRUST_PROXY names the proxies in front of the gateway; the services sit behind the gateway on
 * loopback and keep their own default (loopback and private networks), so they believe it.
 */
function envFor(service: string, own: Record<string, string>, port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...shared, ...own, PORT: String(port) };
  if (service !== "gateway") delete env.TRUST_PROXY;
  return env;
}

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

function start({ name, service, port, env }: Process, restarts = 0) {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=vexil-source", path.join(root, "services", service, "src", "main.ts")],
    // Each child reads its settings through its own loadConfig: it gets this environment, with the cluster's addresses on top.
    { cwd: root, env: envFor(service, env, port), stdio: ["ignore", "pipe", "pipe"] },
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
    setTimeout(() => start({ name, service, port, env }, attempt), delay);
  });
}

for (const supervised of services) start(supervised);
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
