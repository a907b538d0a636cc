import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Principal } from "@vexil/auth";
import { createLogger } from "@vexil/logger";
import type { StoreEngine } from "@vexil/store";
import { tempEngine, type TempEngine } from "@vexil/store/testing";
import { AccessService } from "../access/access-service.js";
import { rootRoleRule } from "../roles/root-roles.js";
import { startActionRecovery } from "./action-recovery.js";
import { ActionRunner } from "./action-runner.js";
import { toActionSet } from "./action-service.js";
import {
  createActionSetEventStore,
  createActionSetStore,
  type ActionSetDocument,
  type ActionSetEventDocument,
} from "./action-set-store.js";

const logger = createLogger({ service: "test", level: "silent" });
const leaseMs = 30_000;
const start = new Date("2024-06-01T00:00:00Z");
const principal: Principal = {
  kind: "user",
  via: "personal-access-token",
  user: { id: 7, name: null, username: "bot", email: null, rootRole: "Editor" },
};

const actionSet: ActionSetDocument = {
  _id: 1,
  project: "default",
  name: "kill switch",
  description: null,
  enabled: true,
  actorId: 7,
  match: { source: "signal-endpoint", sourceId: 3, payload: {} },
  actions: [
    {
      id: 1,
      action: "TOGGLE_FEATURE_OFF",
      sortOrder: 1,
      executionParams: { project: "default", featureName: "first", environment: "production" },
      createdAt: start,
      createdByUserId: 1,
    },
    {
      id: 2,
      action: "TOGGLE_FEATURE_ON",
      sortOrder: 2,
      executionParams: { project: "default", featureName: "second", environment: "production" },
      createdAt: start,
      createdByUserId: 1,
    },
  ],
  createdAt: start,
  createdByUserId: 1,
};

const signal = (signalId: number) => ({
  endpointId: 3,
  endpointName: "alerts",
  signalId,
  source: "monitoring",
  payload: {},
  createdAt: start.toISOString(),
});

type ActionState = "not started" | "started" | "success" | "failed";

describe("ActionRunner recovery of interrupted runs", () => {
  let temp: TempEngine;
  let engine: StoreEngine;
  let now: number;
  let calls: string[];
  /** Makes the next change of this flag hang, as if the process died while running it. */
  let hangOn: string | undefined;
  let releaseHang: () => void;

  const clock = () => new Date(now);

  async function runner(label: string) {
    return new ActionRunner({
      actionSets: await createActionSetStore(engine),
      actionSetEvents: await createActionSetEventStore(engine),
      features: {
        async setEnvironmentEnabled(_project, name) {
          calls.push(`${label}:${name}`);
          if (name === hangOn) {
            hangOn = undefined;
            await new Promise<void>((resolve) => (releaseHang = resolve));
          }
        },
      },
      access: new AccessService([rootRoleRule]),
      clock,
      leaseMs,
      logger,
      actors: { resolve: async (id) => (id === 7 ? { actor: { name: "bot", userId: 7 }, principal } : null) },
    });
  }

  async function seed(doc: ActionSetDocument = actionSet) {
    const store = await createActionSetStore(engine);
    await engine.withTransaction((session) => store.insert(doc, session));
  }

  /** A log entry as a runner that died at some point would have left it. */
  async function interrupted(signalId: number, states: [ActionState, ActionState]): Promise<ActionSetEventDocument> {
    const snapshot = toActionSet(actionSet);
    const entry = await (
      await createActionSetEventStore(engine)
    ).claim({
      actionSetId: actionSet._id,
      signalId,
      createdAt: clock(),
      state: "started",
      signal: {
        id: signalId,
        source: "signal-endpoint",
        sourceId: 3,
        createdAt: start.toISOString(),
        tokenName: "monitoring",
        payload: {},
      },
      actionSet: { ...snapshot, actions: snapshot.actions.map((a, i) => ({ ...a, state: states[i] })) },
      lease: { owner: "dead-instance", expiresAt: new Date(now + leaseMs) },
    });
    if (!entry) throw new Error("claim failed");
    return entry;
  }

  async function log() {
    return (await createActionSetEventStore(engine)).list(actionSet._id, { limit: 10, offset: 0 });
  }

  beforeEach(async () => {
    temp = await tempEngine("action-recovery");
    engine = temp.engine;
    now = start.getTime();
    calls = [];
    hangOn = undefined;
    await seed();
  });
  afterEach(async () => {
    await temp.remove();
  });

  it("takes over a run stopped mid-action only after its lease, on exactly one of two instances, and re-runs the interrupted toggle", async () => {
    const [a, b, c] = [await runner("a"), await runner("b"), await runner("c")];
    hangOn = "first";
    const stuck = a.handle(signal(20));
    await vi.waitFor(() => expect(calls).toEqual(["a:first"]));
    expect((await log())[0].actionSet.actions.map((x) => x.state)).toEqual(["started", "not started"]);

    now += leaseMs - 1;
    expect(await b.recoverInterrupted()).toBe(0);
    now += 2;
    const taken = await Promise.all([b.recoverInterrupted(), c.recoverInterrupted()]);
    expect([...taken].sort()).toEqual([0, 1]);

    const [entry] = await log();
    expect(entry.state).toBe("success");
    expect(entry.actionSet.actions[0]).toMatchObject({ state: "success", details: expect.stringMatching(/interrupted.*idempotent/) });
    expect(entry.actionSet.actions[1]).toMatchObject({ state: "success" });
    expect(entry.actionSet.actions[1].details).toBeUndefined();
    const winner = taken[0] === 1 ? "b" : "c";
    expect(calls).toEqual(["a:first", `${winner}:first`, `${winner}:second`]);

    // The first instance wakes up: it has lost the entry, so it neither runs more nor rewrites the log.
    releaseHang();
    await stuck;
    expect(calls).toHaveLength(3);
    expect(await log()).toEqual([entry]);
  });

  it("never touches finished runs, however old", async () => {
    await (await runner("a")).handle(signal(21));
    const before = await log();
    expect(before[0].state).toBe("success");
    now += 10 * leaseMs;
    expect(await (await runner("b")).recoverInterrupted()).toBe(0);
    expect(await log()).toEqual(before);
    expect(calls).toEqual(["a:first", "a:second"]);
  });

  it("finishes the actions not yet started without re-running those already done", async () => {
    await interrupted(22, ["success", "not started"]);
    now += leaseMs + 1;
    expect(await (await runner("b")).recoverInterrupted()).toBe(1);
    expect(calls).toEqual(["b:second"]);
    const [entry] = await log();
    expect(entry.state).toBe("success");
    expect(entry.actionSet.actions.map((x) => [x.state, x.details])).toEqual([
      ["success", undefined],
      ["success", undefined],
    ]);
    expect(entry.lease.owner).not.toBe("dead-instance");
  });

  it("ends a run whose action had already failed as failed, running nothing more", async () => {
    await interrupted(23, ["failed", "not started"]);
    now += leaseMs + 1;
    expect(await (await runner("b")).recoverInterrupted()).toBe(1);
    expect(calls).toEqual([]);
    const [entry] = await log();
    expect(entry.state).toBe("failed");
    expect(entry.actionSet.actions.map((x) => x.state)).toEqual(["failed", "not started"]);
  });

  it("does not finish a run for an action set disabled or deleted since, and says why", async () => {
    const store = await createActionSetStore(engine);
    await engine.withTransaction((session) => store.replace({ ...actionSet, enabled: false }, session));
    await interrupted(24, ["started", "not started"]);
    now += leaseMs + 1;
    expect(await (await runner("b")).recoverInterrupted()).toBe(1);
    let [entry] = await log();
    expect(entry.state).toBe("failed");
    expect(entry.actionSet.actions[0]).toMatchObject({
      state: "failed",
      details: expect.stringMatching(/interrupted; the action set was disabled/),
    });
    expect(entry.actionSet.actions[1].state).toBe("not started");

    await engine.withTransaction((session) => store.delete(actionSet._id, session));
    await interrupted(25, ["success", "not started"]);
    now += leaseMs + 1;
    expect(await (await runner("b")).recoverInterrupted()).toBe(1);
    [entry] = await log();
    expect(entry).toMatchObject({ signalId: 25, state: "failed" });
    expect(entry.actionSet.actions[1]).toMatchObject({ state: "failed", details: expect.stringMatching(/deleted/) });
    expect(calls).toEqual([]);
  });

  it("ends a run whose every action was done before the interruption without running any again", async () => {
    await interrupted(26, ["success", "success"]);
    now += leaseMs + 1;
    expect(await (await runner("b")).recoverInterrupted()).toBe(1);
    expect((await log())[0].state).toBe("success");
    expect(calls).toEqual([]);
  });
});

describe("startActionRecovery", () => {
  afterEach(() => vi.useRealTimers());

  it("sweeps at start and then periodically until stopped, and survives a failing sweep", async () => {
    vi.useFakeTimers();
    let sweeps = 0;
    const recovery = startActionRecovery(
      {
        async recoverInterrupted() {
          sweeps++;
          if (sweeps === 2) throw new Error("store unavailable");
          return 0;
        },
      },
      { intervalMs: 1000, logger },
    );
    expect(sweeps).toBe(1);
    await vi.advanceTimersByTimeAsync(3000);
    expect(sweeps).toBe(4);
    await recovery.stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(sweeps).toBe(4);
  });
});
