/**
 * An admin instance that stops in the middle of running an action set leaves its log entry
 * "started"; the next admin start on the same store takes it over and finishes it, visible through
 * the log API. The interrupted entry is written straight into the store, as a runner that died
 * mid-action leaves it, which only an in-process test can do.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTokenSecret } from "@vexil/auth";
import { createMemoryBus } from "@vexil/bus";
import { createMemoryCache } from "@vexil/cache";
import { createHttpApp, listen } from "@vexil/http";
import { createLogger } from "@vexil/logger";
import { createEmbeddedEngine } from "@vexil/store";
import { createAdminDeps } from "./compose/index.js";
import { testSecretBox } from "./secrets/secrets.fixture.js";
import { createAdminService } from "./service.js";

const project = "default";
const flags = ["recovery-first", "recovery-second"];
const adminToken = createTokenSecret({ projects: ["*"], environment: "*" });
const logger = createLogger({ service: "action-recovery-start-test", level: "silent" });
/** One key for both starts, as one installation keeps it. */
const secrets = testSecretBox();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "vexil-admin-action-recovery-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Admin on the embedded store in `dir`, served over HTTP on a free port. */
async function startAdmin() {
  const store = await createEmbeddedEngine({ dir });
  const service = createAdminService(
    await createAdminDeps({
      engines: { store, bus: createMemoryBus(), cache: createMemoryCache() },
      settings: { INIT_ADMIN_API_TOKENS: [adminToken], INIT_CLIENT_API_TOKENS: [], INIT_FRONTEND_API_TOKENS: [] },
      secrets,
      logger,
    }),
  );
  await service.start();
  const server = await listen(createHttpApp({ logger, routers: [service.router] }), 0, "127.0.0.1");
  const call = async (pathname: string, init: { method?: string; body?: unknown } = {}, status = 200) => {
    const res = await fetch(`${server.url}${pathname}`, {
      method: init.method,
      headers: { authorization: adminToken, ...(init.body ? { "content-type": "application/json" } : {}) },
      body: init.body ? JSON.stringify(init.body) : undefined,
    });
    const text = await res.text();
    expect(res.status, `${init.method ?? "GET"} ${pathname}: ${text}`).toBe(status);
    return text ? JSON.parse(text) : undefined;
  };
  return {
    call,
    async stop() {
      await server.close();
      await service.stop();
      await store.close();
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("action set runs interrupted by an admin stop", () => {
  it("are finished by the next admin start: the interrupted toggle is re-run, the rest run once", async () => {
    const first = await startAdmin();
    const endpoint = await first.call("/api/admin/signal-endpoints", { method: "POST", body: { name: "alerts" } }, 201);
    const account = await first.call(
      "/api/admin/service-account",
      { method: "POST", body: { username: "recovery-bot", rootRole: "Editor" } },
      201,
    );
    for (const flag of flags) {
      await first.call(`/api/admin/projects/${project}/features`, { method: "POST", body: { name: flag } }, 201);
      await first.call(`/api/admin/projects/${project}/features/${flag}/environments/development/on`, { method: "POST" });
    }
    const set = await first.call(
      `/api/admin/projects/${project}/actions`,
      {
        method: "POST",
        body: {
          name: "turn both off",
          actorId: account.id,
          match: { source: "signal-endpoint", sourceId: endpoint.id, payload: {} },
          actions: flags.map((featureName, i) => ({
            action: "TOGGLE_FEATURE_OFF",
            sortOrder: i + 1,
            executionParams: { project, featureName, environment: "development" },
          })),
        },
      },
      201,
    );
    await first.stop();

    // What a runner that died while running the first action leaves behind, its lease run out.
    const store = await createEmbeddedEngine({ dir });
    await store.collection<{ _id: number } & Record<string, unknown>>("action_set_events").insertOne({
      _id: await store.nextSequence("action_set_events"),
      actionSetId: set.id,
      signalId: 4242,
      createdAt: new Date(Date.now() - 120_000),
      state: "started",
      signal: {
        id: 4242,
        source: "signal-endpoint",
        sourceId: endpoint.id,
        createdAt: new Date(Date.now() - 120_000).toISOString(),
        tokenName: "monitoring",
        payload: {},
      },
      actionSet: { ...set, actions: set.actions.map((a: object, i: number) => ({ ...a, state: i === 0 ? "started" : "not started" })) },
      lease: { owner: "stopped-admin", expiresAt: new Date(Date.now() - 60_000) },
    });
    await store.close();

    const second = await startAdmin();
    try {
      const logUrl = `/api/admin/projects/${project}/actions/${set.id}/events`;
      let entries: Array<{ signalId: number; state: string; actionSet: { actions: Array<{ state: string; details?: string }> } }> = [];
      for (const until = Date.now() + 10_000; Date.now() < until; await sleep(20)) {
        entries = (await second.call(logUrl)).actionSetEvents;
        if (entries[0]?.state !== "started") break;
      }
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ signalId: 4242, state: "success" });
      expect(entries[0]!.actionSet.actions[0]).toMatchObject({
        state: "success",
        details: expect.stringMatching(/interrupted.*idempotent/),
      });
      expect(entries[0]!.actionSet.actions[1]).toMatchObject({ state: "success" });
      expect(entries[0]!.actionSet.actions[1]!.details).toBeUndefined();
      for (const flag of flags) {
        const feature = await second.call(`/api/admin/projects/${project}/features/${flag}`);
        expect(feature.environments.find((e: { name: string }) => e.name === "development").enabled).toBe(false);
      }
    } finally {
      await second.stop();
    }
  });
});
