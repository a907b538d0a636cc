/**
 * Retention of action set runs and client instances, swept by admin at start (and hourly) with
 * their settings: on the embedded engine always and on MongoDB when MONGODB_URL names a replica
 * set (`npm run test:mongo`). The old documents are written straight into the store, as months of
 * use would leave them.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createTokenSecret } from "@vexil/auth";
import { createMemoryBus } from "@vexil/bus";
import { createMemoryCache } from "@vexil/cache";
import { createLogger } from "@vexil/logger";
import type { StoreEngine } from "@vexil/store";
import { testEngineKinds } from "@vexil/store/testing";
import type { ActionSetEventDocument } from "./actions/action-set-store.js";
import type { ClientApplicationDocument, ClientInstanceDocument } from "./client-applications/client-application-store.js";
import { createAdminDeps, type AdminSettings } from "./compose/index.js";
import { testSecretBox } from "./secrets/secrets.fixture.js";
import { createAdminService } from "./service.js";

const now = new Date("2030-03-31T00:00:00.000Z");
const daysAgo = (days: number) => new Date(now.getTime() - days * 24 * 60 * 60 * 1000);

function run(id: number, createdAt: Date, state: ActionSetEventDocument["state"]): ActionSetEventDocument {
  return {
    _id: id,
    actionSetId: 1,
    signalId: id,
    createdAt,
    state,
    signal: { id, source: "signal-endpoint", sourceId: 1, createdAt: createdAt.toISOString(), tokenName: "ci", payload: {} },
    actionSet: {
      id: 1,
      actorId: 1,
      name: "deploy",
      project: "default",
      actions: [],
      match: { source: "signal-endpoint", sourceId: 1, payload: {} },
    },
    // A run still going holds its lease (another admin works on it); finished ones' leases ran out long ago.
    lease: { owner: "admin-a", expiresAt: state === "started" ? new Date(now.getTime() + 60 * 60 * 1000) : createdAt },
  } as unknown as ActionSetEventDocument;
}

function instance(instanceId: string, lastSeen: Date): ClientInstanceDocument {
  return {
    _id: JSON.stringify(["checkout", instanceId]),
    appName: "checkout",
    instanceId,
    sdkVersion: "unleash-client-node:6.1.0",
    sdkType: "backend",
    environment: "development",
    clientIp: null,
    lastSeen,
    createdAt: lastSeen,
  };
}

describe.each(testEngineKinds("admin retention"))("admin retention: $name", (kind) => {
  let engine: StoreEngine;
  let drop: () => Promise<void>;
  beforeEach(async () => {
    ({ engine, drop } = await kind.open());
    await engine.collection<ActionSetEventDocument>("action_set_events").insertMany([
      run(1, daysAgo(45), "success"),
      run(2, daysAgo(31), "failed"),
      // Still running: it stays, whatever its age.
      run(3, daysAgo(40), "started"),
      run(4, daysAgo(2), "success"),
    ]);
    await engine.collection<ClientApplicationDocument>("client_applications").insertOne({
      _id: "checkout",
      description: null,
      url: null,
      color: null,
      icon: null,
      createdAt: daysAgo(60),
      updatedAt: daysAgo(3),
      createdBy: "sdk",
      announced: true,
    });
    await engine
      .collection<ClientInstanceDocument>("client_instances")
      .insertMany([instance("old", daysAgo(3)), instance("live", daysAgo(0.5))]);
  });
  afterEach(async () => {
    await engine.close();
    await drop();
  });

  async function startAdmin(settings: Partial<AdminSettings>) {
    const service = createAdminService(
      await createAdminDeps({
        engines: { store: engine, bus: createMemoryBus(), cache: createMemoryCache() },
        settings: {
          INIT_ADMIN_API_TOKENS: [createTokenSecret({ projects: ["*"], environment: "*" })],
          INIT_CLIENT_API_TOKENS: [],
          INIT_FRONTEND_API_TOKENS: [],
          ...settings,
        },
        secrets: testSecretBox(),
        logger: createLogger({ service: "admin-retention-test", level: "silent" }),
        clock: () => now,
      }),
    );
    await service.start();
    return service;
  }
  const runs = async () =>
    (await engine.collection<ActionSetEventDocument>("action_set_events").find({}, { sort: { _id: 1 } })).map((doc) => doc._id);
  const instances = async () =>
    (await engine.collection<ClientInstanceDocument>("client_instances").find({}, { sort: { instanceId: 1 } })).map(
      (doc) => doc.instanceId,
    );

  it("keeps finished action set runs for ACTION_SET_EVENTS_RETENTION_DAYS (30) and instances for CLIENT_INSTANCES_RETENTION_DAYS (1)", async () => {
    const admin = await startAdmin({});
    await vi.waitFor(async () => {
      expect(await runs()).toEqual([3, 4]);
      expect(await instances()).toEqual(["live"]);
    });
    await admin.stop();
    // The application stays: only its instances not seen for a day went.
    expect(await engine.collection("client_applications").countDocuments({})).toBe(1);
  });

  it("keeps everything with 0, and follows other values", async () => {
    const keeping = await startAdmin({ ACTION_SET_EVENTS_RETENTION_DAYS: 0, CLIENT_INSTANCES_RETENTION_DAYS: 0 });
    await keeping.stop();
    expect(await runs()).toEqual([1, 2, 3, 4]);
    expect(await instances()).toEqual(["live", "old"]);

    const longer = await startAdmin({ ACTION_SET_EVENTS_RETENTION_DAYS: 40, CLIENT_INSTANCES_RETENTION_DAYS: 7 });
    await vi.waitFor(async () => expect(await runs()).toEqual([2, 3, 4]));
    await longer.stop();
    expect(await instances()).toEqual(["live", "old"]);
  });
});
