/**
 * A NATS (JetStream) and a Redis server of the test's own, on free loopback ports, that the test may
 * stop and start again: the machine's shared servers must never be interrupted. NATS keeps its
 * JetStream store in a temp dir across restarts, as a real broker restart does; Redis keeps nothing,
 * so a restart comes back empty, as a cache that lost its memory does.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort, reachable, waitFor } from "./servers.js";

export const natsServerBinary = "/usr/sbin/nats-server";
export const redisServerBinary = "/usr/bin/redis-server";

export interface PrivateServer {
  url: string;
  port: number;
  /** Whether the server process is running now. */
  readonly running: boolean;
  /** SIGKILL, as a crash or a lost machine does. */
  stop(): Promise<void>;
  /** Starts it again on the same port (NATS with the same store). */
  start(): Promise<void>;
  /** Stops it for good and removes its files. */
  dispose(): Promise<void>;
}

/** Why the private servers cannot run here, or undefined when both binaries are present. */
export function privateServersMissing(): string | undefined {
  const missing = [natsServerBinary, redisServerBinary].filter((binary) => !existsSync(binary));
  return missing.length > 0 ? `${missing.join(" and ")} not installed` : undefined;
}

async function privateServer(name: string, url: (port: number) => string, args: (port: number, dir: string) => [string, string[]]) {
  const port = await freePort();
  const dir = await mkdtemp(path.join(tmpdir(), `vexil-${name}-`));
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let output = "";

  const server: PrivateServer = {
    url: url(port),
    port,
    get running() {
      return child !== undefined && child.exitCode === null && child.signalCode === null;
    },
    async start() {
      if (server.running) return;
      const [binary, argv] = args(port, dir);
      const started = spawn(binary, argv, { stdio: ["ignore", "pipe", "pipe"] });
      started.stdout!.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
      started.stderr!.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
      child = started;
      exited = new Promise((resolve) => started.once("exit", () => resolve()));
      if (!(await waitFor(() => reachable(`tcp://127.0.0.1:${port}`, 200), 20_000, 50))) {
        throw new Error(`${name} did not start on port ${port}:\n${output}`);
      }
    },
    async stop() {
      if (!server.running) return;
      child!.kill("SIGKILL");
      await exited;
    },
    async dispose() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

export function startPrivateNats(): Promise<PrivateServer> {
  return privateServer(
    "nats",
    (port) => `nats://127.0.0.1:${port}`,
    (port, dir) => [natsServerBinary, ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", dir]],
  );
}

export function startPrivateRedis(): Promise<PrivateServer> {
  return privateServer(
    "redis",
    (port) => `redis://127.0.0.1:${port}`,
    (port, dir) => [
      redisServerBinary,
      ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no", "--dir", dir, "--protected-mode", "no"],
    ],
  );
}
