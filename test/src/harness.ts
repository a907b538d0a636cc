import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "vitest";
import type { z } from "zod";
import { createTokenSecret } from "@vexil/auth";
import { errorBodySchema, type ErrorBody } from "@vexil/contracts";
import { startSystem, type RunningSystem, type SystemSettings } from "@vexil/gateway";
import { createLogger } from "@vexil/logger";
import { platformEnv, type PlatformConfig } from "@vexil/runtime";

export interface TestSystemOptions {
  /** Keep data between starts: pass the same dir to a second system. */
  dataDir?: string;
  platform?: Partial<PlatformConfig>;
  frontendApiEnabled?: boolean;
  /** false starts without configured tokens, as a first `npm start` does. */
  seedTokens?: boolean;
  logLevel?: string;
  /** Lets addons target localhost (ADDONS_ALLOW_PRIVATE_URLS) in admin and addon-delivery. */
  allowPrivateAddonUrls?: boolean;
  /** Delivery tuning (attempts, backoff, timeouts), short in tests. */
  addonDelivery?: SystemSettings["addonDelivery"];
  /** Admin settings beyond the seeded tokens, e.g. the signal limits. */
  admin?: Partial<SystemSettings["admin"]>;
  signalIngest?: SystemSettings["signalIngest"];
}

export interface TestSystem {
  url: string;
  dataDir: string;
  tokens: { admin: string; client: string; frontend: string };
  system: RunningSystem;
  /** fetch against the gateway with the admin token and JSON bodies by default. */
  api(pathname: string, init?: ApiInit): Promise<Response>;
  /** Sends the request, asserts the status and returns the body, parsed with `schema` when given. */
  expectStatus<T = any>(pathname: string, init: ApiInit | undefined, status: number, schema?: z.ZodType<T>): Promise<T>;
  /** Sends the request and asserts an error body in the spec's shape with this status and name. */
  expectError(pathname: string, init: ApiInit | undefined, status: number, name: string): Promise<ErrorBody>;
  /** A user with a root role who signs in and acts through a personal access token. */
  createPerson(person: { username: string; rootRole: string; email?: string }): Promise<{ id: number; token: string }>;
  stop(): Promise<void>;
}

/** Asserts a response's status and returns its JSON body (undefined when empty). */
export async function expectJson(res: Response, status: number): Promise<any> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return text ? JSON.parse(text) : undefined;
}

/** A body just over the 100 kB request limit. */
export const oversize = (body: object) => ({ ...body, padding: "x".repeat(101 * 1024) });
/** A request whose body is not JSON, for the 415 cases. */
export const plainTextRequest = (method: string): ApiInit => ({ method, body: "hello", headers: { "content-type": "text/plain" } });

export interface ApiInit extends Omit<RequestInit, "body"> {
  body?: unknown;
  /** Authorization header value; null sends none. Defaults to the admin token. */
  token?: string | null;
}

/**
 * The whole system in this process on a free port, with embedded engines in a temp dir and one
 * seeded token of each type (client and frontend scoped to development).
 */
export async function startTestSystem(options: TestSystemOptions = {}): Promise<TestSystem> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), "vexil-e2e-")));
  const tokens = {
    admin: createTokenSecret({ projects: ["*"], environment: "*" }),
    client: createTokenSecret({ projects: ["*"], environment: "development" }),
    frontend: createTokenSecret({ projects: ["*"], environment: "development" }),
  };
  const platform = platformEnv.parse({ DATA_DIR: dataDir, ...options.platform });
  const system = await startSystem(
    {
      platform,
      addonDelivery: { allowPrivateUrls: options.allowPrivateAddonUrls ?? false, ...options.addonDelivery },
      admin: {
        // Every e2e sign-in comes from one address; tests of the sign-in limit set their own.
        SIMPLE_LOGIN_LIMIT_PER_MINUTE: 1000,
        ...options.admin,
        ...(options.seedTokens === false
          ? { INIT_ADMIN_API_TOKENS: [], INIT_CLIENT_API_TOKENS: [], INIT_FRONTEND_API_TOKENS: [] }
          : {
              INIT_ADMIN_API_TOKENS: [tokens.admin],
              INIT_CLIENT_API_TOKENS: [tokens.client],
              INIT_FRONTEND_API_TOKENS: [tokens.frontend],
            }),
      },
      signalIngest: options.signalIngest,
      frontendEval: { FRONTEND_API_ENABLED: options.frontendApiEnabled ?? true },
      port: 0,
      host: "127.0.0.1",
    },
    createLogger({ service: "e2e", level: options.logLevel ?? "silent" }),
  );
  const api = (pathname: string, { body, token, headers, ...init }: ApiInit = {}) => {
    const auth = token === undefined ? tokens.admin : token;
    return fetch(`${system.url}${pathname}`, {
      ...init,
      headers: {
        ...(auth ? { authorization: auth } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...(headers as Record<string, string> | undefined),
      },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
  };
  return {
    url: system.url,
    dataDir,
    tokens,
    system,
    api,
    async expectStatus(pathname, init, status, schema) {
      const res = await api(pathname, init);
      const text = await res.text();
      expect(res.status, `${init?.method ?? "GET"} ${pathname}: ${text}`).toBe(status);
      const body = text ? JSON.parse(text) : undefined;
      return schema ? schema.parse(body) : body;
    },
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
      const user = await expectJson(
        await api("/api/admin/user-admin", { method: "POST", body: { username, rootRole, password, ...(email ? { email } : {}) } }),
        201,
      );
      const login = await api("/auth/simple/login", { method: "POST", token: null, body: { username, password } });
      const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
      const pat = await expectJson(
        await api("/api/admin/user/tokens", {
          method: "POST",
          token: null,
          headers: { cookie },
          body: { description: username, expiresAt: "2099-01-01T00:00:00.000Z" },
        }),
        201,
      );
      return { id: user.id, token: pat.secret };
    },
    async stop() {
      await system.stop();
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
