import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { platformEnv, storeLocation } from "@vexil/runtime";
import { createEmbeddedEngine } from "@vexil/store";
import { startTestSystem, type TestSystem } from "../src/index.js";

/**
 * An admin instance that stops in the middle of running an action set leaves its log entry
 * "started"; the next admin start takes it over and finishes it, visible through the log API.
 */

const project = "default";
const flags = ["recovery-first", "recovery-second"];
let dataDir: string;
let vexil: TestSystem | undefined;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function developmentEnabled(system: TestSystem, flag: string): Promise<boolean> {
  const feature = await (await system.api(`/api/admin/projects/${project}/features/${flag}`)).json();
  return feature.environments.find((e: { name: string }) => e.name === "development").enabled;
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "vexil-e2e-action-recovery-"));
});
afterAll(async () => {
  await vexil?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe("action set runs interrupted by an admin stop", () => {
  it("are finished by the next admin start: the interrupted toggle is re-run, the rest run once", async () => {
    const first = await startTestSystem({ dataDir });
    const endpoint = await first.expectStatus("/api/admin/signal-endpoints", { method: "POST", body: { name: "alerts" } }, 201);
    const account = await first.expectStatus(
      "/api/admin/service-account",
      { method: "POST", body: { username: "recovery-bot", rootRole: "Editor" } },
      201,
    );
    for (const flag of flags) {
      await first.expectStatus(`/api/admin/projects/${project}/features`, { method: "POST", body: { name: flag } }, 201);
      await first.expectStatus(`/api/admin/projects/${project}/features/${flag}/environments/development/on`, { method: "POST" }, 200);
    }
    const set = await first.expectStatus(
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
    const store = await createEmbeddedEngine({ dir: storeLocation(platformEnv.parse({ DATA_DIR: dataDir }), "admin").dir });
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

    vexil = await startTestSystem({ dataDir });
    const logUrl = `/api/admin/projects/${project}/actions/${set.id}/events`;
    let entries: Array<{ signalId: number; state: string; actionSet: { actions: Array<{ state: string; details?: string }> } }> = [];
    for (const until = Date.now() + 10_000; Date.now() < until; await sleep(20)) {
      entries = (await vexil.expectStatus(logUrl, undefined, 200)).actionSetEvents;
      if (entries[0]?.state !== "started") break;
    }
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ signalId: 4242, state: "success" });
    expect(entries[0].actionSet.actions[0]).toMatchObject({ state: "success", details: expect.stringMatching(/interrupted.*idempotent/) });
    expect(entries[0].actionSet.actions[1]).toMatchObject({ state: "success" });
    expect(entries[0].actionSet.actions[1].details).toBeUndefined();
    for (const flag of flags) expect(await developmentEnabled(vexil, flag)).toBe(false);
  });
});
