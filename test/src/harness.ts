import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { connect } from "nats";
import { createClient } from "redis";
import { expect } from "vitest";
import type { z } from "zod";
import { errorBodySchema, type ErrorBody } from "@vexil/contracts";
import { natsUrl, reachable, redisUrl } from "./servers.js";
import { tokenSecret } from "./tokens.js";
import { startVexilProcess, type VexilProcess } from "./vexil-process.js";

export interface TestSystemOptions {
  /** `single` (default): the compiled gateway under node; `cluster`: one process per service, over NATS and Redis. */
  mode?: "single" | "cluster";
  /** Keep data between starts: pass the same dir to a second system. */
  dataDir?: string;
  /** false starts without configured tokens, as a first `npm start` does. */
  seedTokens?: boolean;
  /** Settings by their environment variable names (the README's configuration table). */
  env?: Record<string, string>;
}

export interface ApiInit extends Omit<RequestInit, "body"> {
  body?: unknown;
  /** Authorization header value; null sends none. Defaults to the admin token. */
  token?: string | null;
}

export interface TestSystem {
  /** The gateway's address; a restart may move it to another port. */
  readonly url: string;
  readonly dataDir: string;
  readonly mode: "single" | "cluster";
  /** The running process (the cluster supervisor in cluster mode). */
  readonly process: VexilProcess;
  /** Seeded tokens: admin for everything, client and frontend for every project in development. */
  tokens: { admin: string; client: string; frontend: string };
  /** The NATS stream and namespace and Redis key prefix (`<namespace>:`) of a cluster run. */
  namespace: string | undefined;
  /** The admin token a start without configured tokens printed, if this process printed one. */
  createdAdminSecret(): string | undefined;
  /** fetch against the gateway with the admin token and JSON bodies by default. */
  api(pathname: string, init?: ApiInit): Promise<Response>;
  /** Sends the request, asserts the status and returns the body, parsed with `schema` when given. */
  expectStatus<T = any>(pathname: string, init: ApiInit | undefined, status: number, schema?: z.ZodType<T>): Promise<T>;
  /** Sends the request and asserts an error body in the spec's shape with this status and name. */
  expectError(pathname: string, init: ApiInit | undefined, status: number, name: string): Promise<ErrorBody>;
  /** A user with a root role who signs in and acts through a personal access token. */
  createPerson(person: { username: string; rootRole: string; email?: string }): Promise<{ id: number; token: string }>;
  /** Creates a project (every environment enabled, as Unleash does) and returns its id. */
  createProject(id: string, fields?: Record<string, unknown>): Promise<string>;
  /** Creates an API token through the admin API and returns its secret. */
  createApiToken(token: { type: "client" | "frontend"; projects: string[]; environment?: string; name?: string }): Promise<string>;
  /** Stops the process and starts it again on the same data (and namespace); waits until ready. */
  restart(): Promise<void>;
  /** Stops the process and removes what the system created: its data dir (unless given), its stream and keys. */
  stop(): Promise<void>;
}

/** Whether cluster mode can run here: it needs NATS (JetStream) and Redis. Logs why not. */
export async function clusterAvailable(what: string): Promise<boolean> {
  const available = (await reachable(natsUrl)) && (await reachable(redisUrl));
  if (!available) console.log(`skipped: ${what} needs NATS at ${natsUrl} and Redis at ${redisUrl}`);
  return available;
}

/** Asserts a response's status and returns its JSON body (undefined when empty). */
/**
 * The admin token a first start created, from its start banner: a log record whose message and
 * `banner` lines hold the line after "shown once" (the gateway's in single mode, admin's in cluster mode).
 */
export function createdAdminSecretIn(vexil: VexilProcess): string | undefined {
  for (const record of vexil.logLines()) {
    if (!Array.isArray(record.banner)) continue;
    const lines = [String(record.msg), ...record.banner.map(String)];
    const at = lines.findIndex((line) => line.includes("shown once"));
    const secret = at >= 0 ? lines[at + 1]?.trim() : undefined;
    if (secret && /^\*:\*\.\S+$/.test(secret)) return secret;
  }
  return undefined;
}

export async function expectJson(res: Response, status: number): Promise<any> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return text ? JSON.parse(text) : undefined;
}

/** A body just over the 100 kB request limit. */
export const oversize = (body: object) => ({ ...body, padding: "x".repeat(101 * 1024) });
/** A request whose body is not JSON, for the 415 cases. */
export const plainTextRequest = (method: string): ApiInit => ({ method, body: "hello", headers: { "content-type": "text/plain" } });

/** The settings that give a cluster run a NATS stream, namespace and Redis key prefix of its own. */
export function privateBackendEnv(namespace: string): Record<string, string> {
  return { NATS_URL: natsUrl, REDIS_URL: redisUrl, NATS_STREAM: namespace, NATS_NAMESPACE: namespace, REDIS_KEY_PREFIX: `${namespace}:` };
}

/** Deletes a cluster run's event stream and Redis keys; both are this run's own (unique namespace). */
export async function removeNamespace(namespace: string): Promise<void> {
  const nc = await connect({ servers: natsUrl });
  try {
    await (await nc.jetstreamManager()).streams.delete(namespace).catch(() => undefined);
  } finally {
    await nc.close();
  }
  const redis = createClient({ url: redisUrl });
  await redis.connect();
  try {
    for await (const keys of redis.scanIterator({ MATCH: `${namespace}:*`, COUNT: 500 })) {
      if (keys.length > 0) await redis.del(keys);
    }
  } finally {
    await redis.quit();
  }
}

/**
 * Vexil in a child process on free ports, started as users start it (see `vexil-process.ts`),
 * with a temp DATA_DIR and one seeded token of each type (client and frontend scoped to every
 * project in development). Logs at info, so each answered request is on record for the OpenAPI
 * coverage check. Cluster mode gets a NATS namespace, stream and Redis key prefix of its own.
 */
export async function startTestSystem(options: TestSystemOptions = {}): Promise<TestSystem> {
  const mode = options.mode ?? "single";
  const tokens = {
    admin: tokenSecret("*", "*"),
    client: tokenSecret("*", "development"),
    frontend: tokenSecret("*", "development"),
  };
  const namespace = mode === "cluster" ? `e2e_${randomUUID().slice(0, 12)}` : undefined;
  const env: Record<string, string> = {
    // Every e2e sign-in comes from one address; tests of the sign-in limit set their own.
    SIMPLE_LOGIN_LIMIT_PER_MINUTE: "1000",
    ...(options.seedTokens === false
      ? {}
      : { INIT_ADMIN_API_TOKENS: tokens.admin, INIT_CLIENT_API_TOKENS: tokens.client, INIT_FRONTEND_API_TOKENS: tokens.frontend }),
    ...(namespace ? privateBackendEnv(namespace) : {}),
    ...options.env,
  };
  // Made here rather than by the process, so it outlives restarts.
  const ownDataDir = !options.dataDir;
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), "vexil-e2e-")));
  let current = await startVexilProcess({ mode, env, dataDir }).catch(async (err: unknown) => {
    if (ownDataDir) await rm(dataDir, { recursive: true, force: true });
    if (namespace) await removeNamespace(namespace);
    throw err;
  });

  const api = (pathname: string, { body, token, headers, ...init }: ApiInit = {}) => {
    const auth = token === undefined ? tokens.admin : token;
    const given = headers as Record<string, string> | undefined;
    // A change with the session cookie goes as the web UI sends it: from the server's own origin, declaring JSON.
    const asTheUi = given?.cookie !== undefined && !["GET", "HEAD", undefined].includes(init.method?.toUpperCase());
    return fetch(`${current.url}${pathname}`, {
      ...init,
      headers: {
        ...(auth ? { authorization: auth } : {}),
        ...(body !== undefined || asTheUi ? { "content-type": "application/json" } : {}),
        ...(asTheUi ? { origin: new URL(current.url).origin } : {}),
        ...given,
      },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
  };
  const expectStatus: TestSystem["expectStatus"] = async (pathname, init, status, schema) => {
    const res = await api(pathname, init);
    const text = await res.text();
    expect(res.status, `${init?.method ?? "GET"} ${pathname}: ${text}`).toBe(status);
    const body = text ? JSON.parse(text) : undefined;
    return schema ? schema.parse(body) : body;
  };

  return {
    get url() {
      return current.url;
    },
    dataDir,
    mode,
    get process() {
      return current;
    },
    tokens,
    namespace,
    createdAdminSecret() {
      return createdAdminSecretIn(current);
    },
    api,
    expectStatus,
    async expectError(pathname, init, status, name) {
      const res = await api(pathname, init);
      const text = await res.text();
      expect(res.status, `${init?.method ?? "GET"} ${pathname}: ${text}`).toBe(status);
      const body = errorBodySchema.parse(JSON.parse(text));
      expect(body.name).toBe(name);
      return body;
    },
    async createPerson({ username, rootRole, email }) {
      const password = "Str0ng-enough!";
      const user = await expectStatus(
        "/api/admin/user-admin",
        { method: "POST", body: { username, rootRole, password, ...(email ? { email } : {}) } },
        201,
      );
      const login = await api("/auth/simple/login", { method: "POST", token: null, body: { username, password } });
      expect(login.status).toBe(200);
      const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
      const pat = await expectStatus(
        "/api/admin/user/tokens",
        { method: "POST", token: null, headers: { cookie }, body: { description: username, expiresAt: "2099-01-01T00:00:00.000Z" } },
        201,
      );
      return { id: user.id, token: pat.secret };
    },
    async createProject(id, fields = {}) {
      await expectStatus("/api/admin/projects", { method: "POST", body: { id, name: id, ...fields } }, 201);
      return id;
    },
    async createApiToken({ type, projects, environment = "development", name }) {
      const body = { tokenName: name ?? `${type}-${projects.join("-")}-${randomUUID().slice(0, 6)}`, type, environment, projects };
      return (await expectStatus("/api/admin/api-tokens", { method: "POST", body }, 201)).secret;
    },
    async restart() {
      await current.stop();
      current = await startVexilProcess({ mode, env, dataDir });
    },
    async stop() {
      await current.stop();
      if (ownDataDir) await rm(dataDir, { recursive: true, force: true });
      if (namespace) await removeNamespace(namespace);
    },
  };
}
