/**
 * What the store keeps, seen through the compiled gateway as users run it: uniqueness and the
 * feature limit under concurrent requests, user-chosen keys with `$` and `.` kept as data across a
 * restart, secrets at rest, and frontend-eval starting while MongoDB is unreachable.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTokenSecret } from "@vexil/auth";
import { freePort, waitFor } from "../src/servers.js";
import { repoRoot, startVexilProcess, type VexilProcess } from "../src/vexil-process.js";

const adminToken = createTokenSecret({ projects: ["*"], environment: "*" });
const clientToken = createTokenSecret({ projects: ["*"], environment: "development" });

describe("the store through the compiled gateway", () => {
  let vexil: VexilProcess;
  let parent: string;
  /** DATA_DIR does not exist yet: the store creates it. */
  let dataDir: string;
  const start = () => startVexilProcess({ dataDir, env: { INIT_ADMIN_API_TOKENS: adminToken, INIT_CLIENT_API_TOKENS: clientToken } });
  const api = (pathname: string, init: { method?: string; body?: unknown; token?: string } = {}) =>
    fetch(`${vexil.url}${pathname}`, {
      method: init.method ?? (init.body === undefined ? "GET" : "POST"),
      headers: { authorization: init.token ?? adminToken, "content-type": "application/json" },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });

  beforeAll(async () => {
    parent = await mkdtemp(path.join(tmpdir(), "vexil-store-rules-"));
    dataDir = path.join(parent, "data");
    vexil = await start();
  }, 120_000);
  afterAll(async () => {
    await vexil?.stop();
    await rm(parent, { recursive: true, force: true });
  });

  it("two user creations with one username at once: one 201, one 409, one account", async () => {
    const create = (rootRole: number) => api("/api/admin/user-admin", { body: { username: "twin", rootRole } });
    const responses = await Promise.all([create(3), create(2), create(3)]);
    expect(responses.map((res) => res.status).sort()).toEqual([201, 409, 409]);
    const conflict = responses.find((res) => res.status === 409)!;
    expect(await conflict.json()).toMatchObject({ name: "NameExistsError", message: expect.stringContaining("twin") });
    const users = (await (await api("/api/admin/user-admin")).json()).users as Array<{ username: string | null }>;
    expect(users.filter((user) => user.username === "twin")).toHaveLength(1);
  });

  it.each([
    ["a fresh project", "limited", true],
    ["default", "default", false],
  ])("flags created at once in %s with a feature limit: exactly the limit", async (_label, project, fresh) => {
    const limit = 3;
    if (fresh) expect((await api("/api/admin/projects", { body: { id: project, name: "Limited", featureLimit: limit } })).status).toBe(201);
    else
      expect((await api(`/api/admin/projects/${project}`, { method: "PUT", body: { name: "Default", featureLimit: limit } })).status).toBe(
        200,
      );
    try {
      const responses = await Promise.all(
        Array.from({ length: 8 }, (_, i) => api(`/api/admin/projects/${project}/features`, { body: { name: `${project}-crowd-${i}` } })),
      );
      expect(responses.filter((res) => res.status === 201)).toHaveLength(limit);
      for (const res of responses.filter((r) => r.status !== 201)) {
        expect(res.status).toBe(409);
        expect(await res.json()).toMatchObject({
          name: "NameExistsError",
          message: expect.stringContaining("maximum number of feature flags"),
        });
      }
      const overview = await (await api(`/api/admin/projects/${project}`)).json();
      expect(overview.features).toHaveLength(limit);
    } finally {
      if (!fresh) await api(`/api/admin/projects/${project}`, { method: "PUT", body: { name: "Default", featureLimit: null } });
    }
  });

  it("keeps strategy parameters named like EJSON wrappers or with dots as data, across a restart, to SDKs", async () => {
    // Alone in its object, a key like `$date` is what EJSON turns into a Date.
    const parameterSets = [{ $date: "2024-01-01T00:00:00Z" }, { $numberLong: "5" }, { "group.id": "g", $oid: "x", "a.b.c": "d" }];
    const projectTokens: Record<string, string> = {};
    for (const project of ["default", "keys"]) {
      if (project !== "default") expect((await api("/api/admin/projects", { body: { id: project, name: "Keys" } })).status).toBe(201);
      expect((await api(`/api/admin/projects/${project}/features`, { body: { name: `${project}-params` } })).status).toBe(201);
      for (const parameters of parameterSets) {
        const res = await api(`/api/admin/projects/${project}/features/${project}-params/environments/development/strategies`, {
          body: { name: "default", parameters, constraints: [] },
        });
        expect(res.status).toBe(200);
      }
      await api(`/api/admin/projects/${project}/features/${project}-params/environments/development/on`, { method: "POST" });
      const token = await api("/api/admin/api-tokens", {
        body: { tokenName: `${project}-reader`, type: "client", environment: "development", projects: [project] },
      });
      expect(token.status).toBe(201);
      projectTokens[project] = (await token.json()).secret;
    }
    const stored = async (project: string) => {
      const feature = await (await api(`/api/admin/projects/${project}/features/${project}-params`)).json();
      return feature.environments
        .find((env: { name: string }) => env.name === "development")
        .strategies.map((s: { parameters: unknown }) => s.parameters);
    };
    /** What SDKs get, through a token for every project and through one for the flag's project. */
    const served = async (project: string, token: string) => {
      const body = await (await api("/api/client/features", { token })).json();
      return body.features
        .find((f: { name: string }) => f.name === `${project}-params`)
        ?.strategies.map((s: { parameters: unknown }) => s.parameters);
    };
    const servedAsWritten = (project: string) =>
      waitFor(async () => {
        for (const token of [clientToken, projectTokens[project]!]) {
          if (JSON.stringify(await served(project, token)) !== JSON.stringify(parameterSets)) return false;
        }
        return true;
      }, 20_000);
    for (const project of ["default", "keys"]) {
      expect(await stored(project)).toEqual(parameterSets);
      expect(await servedAsWritten(project)).toBe(true);
    }
    await vexil.stop();
    vexil = await start();
    for (const project of ["default", "keys"]) {
      expect(await stored(project)).toEqual(parameterSets);
      expect(await servedAsWritten(project)).toBe(true);
    }
  }, 120_000);

  it("keeps its data private: DATA_DIR 0700, files 0600, and token use recorded without copying the secret", async () => {
    const mode = async (file: string) => (await stat(file)).mode & 0o777;
    expect(await mode(dataDir)).toBe(0o700);
    const adminDir = path.join(dataDir, "admin");
    expect(await mode(adminDir)).toBe(0o700);
    expect(await mode(path.join(adminDir, "journal.ejsonl"))).toBe(0o600);

    // Every admin request reports the token's use; admin records it about once a second.
    const seenAt = async () => {
      const tokens = (await (await api("/api/admin/api-tokens")).json()).tokens as Array<{ secret: string; seenAt: string | null }>;
      return tokens.find((token) => token.secret === adminToken)?.seenAt ?? null;
    };
    const first = (await waitFor(async () => (await seenAt()) !== null, 20_000)) ? await seenAt() : null;
    expect(first).not.toBeNull();
    expect(await waitFor(async () => (await seenAt()) !== first, 20_000)).toBe(true);
    const copies = async (file: string) => (await readFile(path.join(adminDir, file), "utf8").catch(() => "")).split(adminToken).length - 1;
    // The token itself, stored once (in the journal or the snapshot it was folded into).
    expect((await copies("journal.ejsonl")) + (await copies("snapshot.ejson"))).toBe(1);
  }, 60_000);
});

describe("frontend-eval while MongoDB is unreachable", () => {
  it("starts, answers health, and has no store to be ready for", async () => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      LOG_LEVEL: "warn",
      // Nothing listens on port 9; the driver would wait 10 minutes for a server.
      MONGODB_URL: "mongodb://127.0.0.1:9/?serverSelectionTimeoutMS=600000",
    };
    // The in-process bus and cache: this is about the store only.
    delete env.NATS_URL;
    delete env.REDIS_URL;
    const child = spawn(process.execPath, [path.join(repoRoot, "services/frontend-eval/dist/main.js")], {
      cwd: repoRoot,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    try {
      const url = `http://127.0.0.1:${port}`;
      expect(await waitFor(async () => (await fetch(`${url}/health`)).ok, 30_000), output).toBe(true);
      const ready = await (await fetch(`${url}/ready`)).json();
      expect(ready.checks.map((check: { name: string }) => check.name)).not.toContain("store");
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  }, 60_000);
});
