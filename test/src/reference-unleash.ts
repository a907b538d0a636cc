/**
 * The reference server: unleash-server 8.2.0 from npm, installed into a git-ignored folder and started
 * with plain `node` against the local PostgreSQL in a database of its own. The parity harness
 * (`npm run test:parity`) and the comparative benchmark drive it over HTTP exactly as they drive Vexil.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { waitFor } from "./servers.js";
import { repoRoot, startOnFreePorts } from "./vexil-process.js";

export const referenceUnleashVersion = "8.2.0";
const defaultInstallDir = path.join(repoRoot, "test/.reference-unleash", referenceUnleashVersion);
const launcher = path.join(repoRoot, "test/src/reference-unleash-launcher.mjs");

export interface PostgresConnection {
  host: string;
  port: number;
  user: string;
  password?: string;
}

/** The machine's PostgreSQL: loopback, trust auth, user postgres (PG* variables override it). */
export const localPostgres: PostgresConnection = {
  host: process.env.PGHOST ?? "127.0.0.1",
  port: Number(process.env.PGPORT ?? 5432),
  user: process.env.PGUSER ?? "postgres",
  password: process.env.PGPASSWORD,
};

export interface ReferenceUnleashOptions {
  /** Database to (re)create for this run; dropped again on stop. Defaults to one named after this process. */
  database?: string;
  postgres?: PostgresConnection;
  /** Tokens created at start, in Unleash's INIT_*_API_TOKENS form (`*:*.secret`, `project:env.secret`). */
  adminTokens?: string[];
  clientTokens?: string[];
  frontendTokens?: string[];
  /** Extra environment for the server (Unleash reads most of its configuration from it). */
  env?: Record<string, string | undefined>;
  /** Where unleash-server is installed (`npm install` runs there when it is missing). */
  installDir?: string;
  readyTimeoutMs?: number;
}

export interface ReferenceUnleash {
  url: string;
  port: number;
  database: string;
  child: ChildProcess;
  output(): string;
  /** SIGTERM (SIGKILL after a grace period), then drops the database. */
  stop(): Promise<void>;
}

/**
 * Installs unleash-server into `installDir` unless that exact version is already there. Install scripts
 * are skipped: they only set up git hooks, report telemetry and build optional native SSH helpers.
 * npm warns that 8.2.0 asks for Node 22; it runs on Node 20 for everything the harness and the
 * benchmark use.
 */
export async function installReferenceUnleash(installDir = defaultInstallDir, log: (line: string) => void = console.log): Promise<string> {
  const manifest = path.join(installDir, "node_modules/unleash-server/package.json");
  if (existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).version === referenceUnleashVersion) return installDir;
  await mkdir(installDir, { recursive: true });
  // Its own package.json makes the folder an npm project of its own, outside the workspaces.
  await writeFile(path.join(installDir, "package.json"), JSON.stringify({ name: "reference-unleash", private: true }, null, 2));
  log(`installing unleash-server@${referenceUnleashVersion} into ${path.relative(repoRoot, installDir)} (a few minutes, once)`);
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const args = ["install", `unleash-server@${referenceUnleashVersion}`, "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund"];
  const { code, output } = await run(npm, args, installDir);
  if (code !== 0 || !existsSync(manifest))
    throw new Error(`npm install unleash-server@${referenceUnleashVersion} failed:\n${output.slice(-4000)}`);
  return installDir;
}

interface PgClient {
  connect(): Promise<void>;
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
}

/** Runs SQL on the `postgres` maintenance database with the `pg` driver that Unleash itself installs. */
async function maintenance(installDir: string, postgres: PostgresConnection, statements: string[]): Promise<void> {
  const pg = createRequire(path.join(installDir, "package.json"))("pg") as { Client: new (config: object) => PgClient };
  const client = new pg.Client({ ...postgres, database: "postgres" });
  await client.connect();
  try {
    for (const sql of statements) await client.query(sql);
  } finally {
    await client.end();
  }
}

const quoteIdentifier = (name: string) => `"${name.replace(/"/g, '""')}"`;

export async function startReferenceUnleash(options: ReferenceUnleashOptions = {}): Promise<ReferenceUnleash> {
  const installDir = await installReferenceUnleash(options.installDir);
  const postgres = options.postgres ?? localPostgres;
  const database = options.database ?? `reference_unleash_${process.pid}`;
  const dropDatabase = `DROP DATABASE IF EXISTS ${quoteIdentifier(database)} WITH (FORCE)`;
  // A try whose port was taken exits with EADDRINUSE; the next one starts on a fresh database.
  const started = await startOnFreePorts(
    1,
    async (port) => {
      await maintenance(installDir, postgres, [dropDatabase, `CREATE DATABASE ${quoteIdentifier(database)}`]);
      return launch(installDir, postgres, database, dropDatabase, port, options);
    },
    ({ ready, server }) => !ready && server.output().includes("EADDRINUSE"),
    ({ server }) => server.stop(),
  );
  if (!started.ready) {
    await started.server.stop();
    throw new Error(
      `unleash-server ${referenceUnleashVersion} did not become ready at ${started.server.url}:\n${started.server.output().slice(-4000)}`,
    );
  }
  return started.server;
}

/** Starts unleash-server on `port` against `database` and waits until it is healthy or has exited. */
async function launch(
  installDir: string,
  postgres: PostgresConnection,
  database: string,
  dropDatabase: string,
  port: number,
  options: ReferenceUnleashOptions,
): Promise<{ ready: boolean; server: ReferenceUnleash }> {
  const child = spawn(process.execPath, [launcher], {
    cwd: installDir,
    env: {
      ...process.env,
      TZ: "UTC",
      LOG_LEVEL: "error",
      HTTP_HOST: "127.0.0.1",
      HTTP_PORT: String(port),
      DATABASE_HOST: postgres.host,
      DATABASE_PORT: String(postgres.port),
      DATABASE_USERNAME: postgres.user,
      DATABASE_PASSWORD: postgres.password ?? "",
      DATABASE_NAME: database,
      DATABASE_SSL: "false",
      INIT_ADMIN_API_TOKENS: options.adminTokens?.join(","),
      INIT_CLIENT_API_TOKENS: options.clientTokens?.join(","),
      INIT_FRONTEND_API_TOKENS: options.frontendTokens?.join(","),
      // The SDK and metrics limits are lifted: contexts and benchmarks call far more often than one SDK.
      SDK_API_RATE_LIMIT_PER_MINUTE: "100000000",
      TOKEN_AUTHENTICATION_RATE_LIMIT_PER_MINUTE: "100000000",
      REGISTER_CLIENT_RATE_LIMIT_PER_MINUTE: "100000000",
      CLIENT_METRICS_RATE_LIMIT_PER_MINUTE: "100000000",
      REGISTER_FRONTEND_RATE_LIMIT_PER_MINUTE: "100000000",
      FRONTEND_METRICS_RATE_LIMIT_PER_MINUTE: "100000000",
      // The frontend API otherwise refreshes its flag cache every 45 minutes.
      FRONTEND_API_REFRESH_INTERVAL_MS: "500",
      CHECK_VERSION: "false",
      SEND_TELEMETRY: "false",
      UNLEASH_SERVER_ENTRY: pathToFileURL(path.join(installDir, "node_modules/unleash-server/dist/lib/server-impl.js")).href,
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let running = true;
  void exited.then(() => (running = false));

  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (running) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    }
    await maintenance(installDir, postgres, [dropDatabase]);
  };
  // Migrations on a fresh database take a while on a loaded machine; a server that exited is not waited for.
  const settled = await waitFor(async () => !running || (await fetch(`${url}/health`)).ok, options.readyTimeoutMs ?? 180_000, 500);
  return { ready: settled && running, server: { url, port, database, child, output: () => output, stop } };
}

function run(command: string, args: string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code: code ?? 1, output }));
  });
}
