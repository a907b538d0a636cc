import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Principal, RootRole } from "@vexil/auth";
import { createLogger } from "@vexil/logger";
import type { StoreEngine } from "@vexil/store";
import { tempEngine, type TempEngine } from "@vexil/store/testing";
import { AccessService } from "../access/access-service.js";
import { rootRoleRule } from "../roles/root-roles.js";
import { ActionRunner, type FeatureEnvironmentSwitch } from "./action-runner.js";
import { createActionSetEventStore, createActionSetStore, type ActionSetDocument } from "./action-set-store.js";

const logger = createLogger({ service: "test", level: "silent" });
const clock = () => new Date("2024-06-01T00:00:00Z");

function principal(rootRole: RootRole): Principal {
  return { kind: "user", via: "personal-access-token", user: { id: 7, name: null, username: "bot", email: null, rootRole } };
}

const actionSet: ActionSetDocument = {
  _id: 1,
  project: "default",
  name: "kill switch",
  description: null,
  enabled: true,
  actorId: 7,
  match: { source: "signal-endpoint", sourceId: 3, payload: { status: { operator: "IN", values: ["firing"] } } },
  actions: [
    {
      id: 2,
      action: "TOGGLE_FEATURE_ON",
      sortOrder: 2,
      executionParams: { project: "default", featureName: "second", environment: "production" },
      createdAt: clock(),
      createdByUserId: 1,
    },
    {
      id: 1,
      action: "TOGGLE_FEATURE_OFF",
      sortOrder: 1,
      executionParams: { project: "default", featureName: "first", environment: "production" },
      createdAt: clock(),
      createdByUserId: 1,
    },
  ],
  createdAt: clock(),
  createdByUserId: 1,
};

const signal = (signalId: number, status: string) => ({
  endpointId: 3,
  endpointName: "alerts",
  signalId,
  source: "monitoring",
  payload: { status },
  createdAt: clock().toISOString(),
});

describe("ActionRunner", () => {
  let temp: TempEngine;
  let engine: StoreEngine;
  let calls: string[];
  const features: FeatureEnvironmentSwitch = {
    async setEnvironmentEnabled(_project, name, environment, enabled, actor) {
      if (name === "missing") throw new Error(`Could not find feature ${name}`);
      calls.push(`${name}:${environment}:${enabled}:${actor.name}`);
    },
  };

  async function runner(rootRole: RootRole = "Editor") {
    const actionSets = await createActionSetStore(engine);
    return new ActionRunner({
      actionSets,
      actionSetEvents: await createActionSetEventStore(engine),
      features,
      access: new AccessService([rootRoleRule]),
      clock,
      logger,
      actors: { resolve: async (id) => (id === 7 ? { actor: { name: "bot", userId: 7 }, principal: principal(rootRole) } : null) },
    });
  }

  async function seed(doc: ActionSetDocument = actionSet) {
    const store = await createActionSetStore(engine);
    await engine.withTransaction((session) => store.insert(doc, session));
  }

  async function log() {
    return (await createActionSetEventStore(engine)).list(actionSet._id, { limit: 10, offset: 0 });
  }

  beforeEach(async () => {
    temp = await tempEngine("actions");
    engine = temp.engine;
    calls = [];
  });
  afterEach(async () => {
    await temp.remove();
  });

  it("runs the actions in sortOrder as the service account and logs success", async () => {
    await seed();
    await (await runner()).handle(signal(10, "firing"));
    expect(calls).toEqual(["first:production:false:bot", "second:production:true:bot"]);
    const [entry] = await log();
    expect(entry).toMatchObject({ signalId: 10, state: "success", signal: { tokenName: "monitoring", sourceId: 3 } });
    expect(entry.actionSet.actions.map((a) => [a.id, a.state])).toEqual([
      [1, "success"],
      [2, "success"],
    ]);
  });

  it("runs at most once per signal, even with two admin instances handling the same delivery", async () => {
    await seed();
    const [a, b] = [await runner(), await runner()];
    await Promise.all([a.handle(signal(11, "firing")), b.handle(signal(11, "firing")), a.handle(signal(11, "firing"))]);
    expect(calls).toHaveLength(2);
    expect(await log()).toHaveLength(1);
  });

  it("ignores signals the filter does not match, and disabled action sets", async () => {
    await seed();
    await seed({ ...actionSet, _id: 2, enabled: false, match: { ...actionSet.match, payload: {} } });
    await (await runner()).handle(signal(12, "resolved"));
    expect(calls).toEqual([]);
    expect(await log()).toEqual([]);
  });

  it("fails with the missing permission when the account's role may not change flags", async () => {
    await seed();
    await (await runner("Viewer")).handle(signal(13, "firing"));
    expect(calls).toEqual([]);
    const [entry] = await log();
    expect(entry.state).toBe("failed");
    expect(entry.actionSet.actions[0]).toMatchObject({ state: "failed", details: expect.stringMatching(/UPDATE_FEATURE_ENVIRONMENT/) });
    expect(entry.actionSet.actions[1].state).toBe("not started");
  });

  it("stops at the first failing action and says why", async () => {
    await seed({
      ...actionSet,
      actions: [
        { ...actionSet.actions[1], executionParams: { ...actionSet.actions[1].executionParams, featureName: "missing" } },
        actionSet.actions[0],
      ],
    });
    await (await runner()).handle(signal(14, "firing"));
    const [entry] = await log();
    expect(entry.state).toBe("failed");
    expect(entry.actionSet.actions.map((a) => a.state)).toEqual(["failed", "not started"]);
    expect(entry.actionSet.actions[0].details).toMatch(/Could not find feature missing/);
    expect(calls).toEqual([]);
  });

  it("fails every action when the service account is gone", async () => {
    await seed({ ...actionSet, actorId: 99 });
    await (await runner()).handle(signal(15, "firing"));
    const [entry] = await log();
    expect(entry.state).toBe("failed");
    expect(entry.actionSet.actions[0].details).toMatch(/Service account 99/);
  });
});
