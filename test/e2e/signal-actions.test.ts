import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterAvailable, startTestSystem, type TestSystem } from "../src/harness.js";
import { waitFor } from "../src/servers.js";
import { signalAdmin, type CreatedEndpoint } from "../src/signals.js";

/**
 * Action sets end to end in cluster mode: admins set up a service account and action sets in the
 * admin process; a signal sent to the signal-ingest process reaches admin over NATS and, when an
 * action set's filter matches, flips a flag through the same path as a user's change, as the
 * service account and within what its root role allows. Runs in `default` and in a project created
 * while Vexil runs, read back through frontend tokens for one project, for several and for all.
 */

const available = await clusterAvailable("signal actions across processes");
/** A project no action set acts in: the several-project tokens include it. */
const elsewhere = "signals-elsewhere";

let vexil: TestSystem;

beforeAll(async () => {
  if (!available) return;
  vexil = await startTestSystem({ mode: "cluster" });
  await vexil.createProject(elsewhere);
});
afterAll(() => vexil?.stop());

const { createEndpoint, createToken, sendAccepted } = signalAdmin(() => vexil);

/** The latest run of an action set once it finished (not `started`); a loaded machine only makes it later. */
async function finishedRuns(project: string, setId: number, count = 1): Promise<ActionSetRun[]> {
  let runs: ActionSetRun[] = [];
  const finished = await waitFor(async () => {
    runs = (await vexil.expectStatus(`/api/admin/projects/${project}/actions/${setId}/events`, undefined, 200)).actionSetEvents;
    return runs.length >= count && runs[0]!.state !== "started";
  }, 30_000);
  expect(finished, `action set ${setId} runs: ${JSON.stringify(runs)}`).toBe(true);
  return runs;
}

interface ActionSetRun {
  actionSetId: number;
  state: string;
  signal: { sourceId: number; tokenName: string; payload: { n?: number; alert?: { status: string } } };
  actionSet: { actions: Array<{ action: string; state: string; details?: string }> };
}

describe.skipIf(!available)("service accounts", () => {
  it("lists service accounts with the root roles; refuses a duplicate username (409) and an unknown role (400)", async () => {
    const actorId = await incidentBot();
    const list = await (await vexil.api("/api/admin/service-account")).json();
    expect(list.serviceAccounts).toEqual([
      expect.objectContaining({ id: actorId, username: "incident-bot", rootRole: 2, accountType: "Service Account" }),
    ]);
    expect(list.rootRoles.map((r: { name: string }) => r.name)).toEqual(["Admin", "Editor", "Viewer"]);
    const duplicate = await vexil.api("/api/admin/service-account", { method: "POST", body: { username: "incident-bot", rootRole: 3 } });
    expect(duplicate.status).toBe(409);
    const badRole = await vexil.api("/api/admin/service-account", { method: "POST", body: { username: "x", rootRole: 42 } });
    expect(badRole.status).toBe(400);
    expect((await vexil.api("/api/admin/service-account", { token: vexil.tokens.frontend })).status).toBe(403);
  });
});

let incidentBotId: number | undefined;
/** The one service account the action sets run as, created on first use. */
async function incidentBot(): Promise<number> {
  if (incidentBotId === undefined) {
    const account = await vexil.api("/api/admin/service-account", {
      method: "POST",
      body: { username: "incident-bot", name: "Incident bot", rootRole: "Editor" },
    });
    expect(account.status, await account.clone().text()).toBe(201);
    incidentBotId = (await account.json()).id as number;
  }
  return incidentBotId;
}

describe.skipIf(!available).each(["default", "signals-fresh"])("action sets on flags in project %s", (project) => {
  const flag = `${project}-kill-switch`;
  let endpoint: CreatedEndpoint;
  let token: string;
  let actorId: number;
  /** Frontend tokens for this project, for it and another, and for every project. */
  let frontendTokens: string[];

  beforeAll(async () => {
    if (!available) return;
    if (project !== "default") await vexil.createProject(project);
    endpoint = await createEndpoint(`incidents-${project}`);
    token = await createToken(endpoint.id, "pagerduty");
    actorId = await incidentBot();
    frontendTokens = [
      await vexil.createApiToken({ type: "frontend", projects: [project] }),
      await vexil.createApiToken({ type: "frontend", projects: [project, elsewhere] }),
      await vexil.createApiToken({ type: "frontend", projects: ["*"] }),
    ];
    const created = await vexil.api(`/api/admin/projects/${project}/features`, { method: "POST", body: { name: flag } });
    expect(created.status, await created.clone().text()).toBeLessThan(300);
    const on = await vexil.api(`/api/admin/projects/${project}/features/${flag}/environments/development/on`, { method: "POST" });
    expect(on.status, await on.clone().text()).toBe(200);
  });

  const actionSet = (overrides: Record<string, unknown> = {}) => ({
    name: "Kill checkout on a firing alert",
    description: "turns the flag off when the alert fires",
    actorId,
    match: { source: "signal-endpoint", sourceId: endpoint.id, payload: { "alert.status": { operator: "IN", values: ["firing"] } } },
    actions: [{ action: "TOGGLE_FEATURE_OFF", sortOrder: 1, executionParams: { project, featureName: flag, environment: "development" } }],
    ...overrides,
  });

  /** Whether the frontend API serves the flag on, through every token; undefined while they disagree. */
  async function frontendEnabled(): Promise<boolean | undefined> {
    const answers = await Promise.all(
      frontendTokens.map(async (token) => {
        const res = await vexil.api("/api/frontend", { token });
        if (res.status !== 200) return undefined;
        return ((await res.json()).toggles as Array<{ name: string }>).some((t) => t.name === flag);
      }),
    );
    return answers.every((answer) => answer === answers[0]) ? answers[0] : undefined;
  }

  async function developmentEnabled(): Promise<boolean> {
    const feature = await (await vexil.api(`/api/admin/projects/${project}/features/${flag}`)).json();
    return feature.environments.find((e: { name: string }) => e.name === "development").enabled;
  }

  it("validates action sets: unknown project (404), actor that is not a service account, foreign project, bad filter (400)", async () => {
    const url = `/api/admin/projects/${project}/actions`;
    expect((await vexil.api("/api/admin/projects/nope/actions", { method: "POST", body: actionSet() })).status).toBe(404);
    const notActor = await vexil.api(url, { method: "POST", body: actionSet({ actorId: 987654 }) });
    expect(notActor.status).toBe(400);
    expect((await notActor.json()).details[0].path).toBe("body.actorId");
    const foreign = await vexil.api(url, {
      method: "POST",
      body: actionSet({
        actions: [
          {
            action: "TOGGLE_FEATURE_ON",
            sortOrder: 1,
            executionParams: { project: "elsewhere", featureName: flag, environment: "development" },
          },
        ],
      }),
    });
    expect(foreign.status).toBe(400);
    const badFilter = await vexil.api(url, {
      method: "POST",
      body: actionSet({
        match: { source: "signal-endpoint", sourceId: endpoint.id, payload: { level: { operator: "NUM_GT", value: "high" } } },
      }),
    });
    expect(badFilter.status).toBe(400);
    const unknownAction = await vexil.api(url, {
      method: "POST",
      body: actionSet({ actions: [{ action: "DELETE_EVERYTHING", sortOrder: 1, executionParams: {} }] }),
    });
    expect(unknownAction.status).toBe(400);
    expect((await vexil.api(`${url}/777`, { method: "PUT", body: actionSet() })).status).toBe(404);
  });

  it("flips the flag from a matching signal, once, as the service account, and logs what it did", async () => {
    const created = await vexil.api(`/api/admin/projects/${project}/actions`, { method: "POST", body: actionSet() });
    expect(created.status, await created.clone().text()).toBe(201);
    const set = await created.json();
    expect(set).toMatchObject({ project, enabled: true, actorId, actions: [expect.objectContaining({ action: "TOGGLE_FEATURE_OFF" })] });

    expect(await waitFor(async () => (await frontendEnabled()) === true, 30_000)).toBe(true);

    // A signal the filter does not match runs nothing: the log below holds only the firing one,
    // and signals are handled in the order they came.
    await sendAccepted(endpoint.name, token, { alert: { status: "resolved" } });
    await sendAccepted(endpoint.name, token, { alert: { status: "firing", name: "checkout 5xx" } });
    expect(await waitFor(async () => (await frontendEnabled()) === false, 30_000), "the frontend API still serves the flag on").toBe(true);
    expect(await developmentEnabled()).toBe(false);

    const runs = await finishedRuns(project, set.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      actionSetId: set.id,
      state: "success",
      signal: { sourceId: endpoint.id, tokenName: "pagerduty", payload: { alert: { status: "firing" } } },
      actionSet: { actions: [expect.objectContaining({ action: "TOGGLE_FEATURE_OFF", state: "success" })] },
    });

    // The change went through the flag model's own path: its event names the service account.
    const events = await (await vexil.api(`/api/admin/events/${flag}`)).json();
    const disabled = (events.events as Array<{ type: string; createdBy: string; createdByUserId: number }>).find(
      (e) => e.type === "feature-environment-disabled",
    );
    expect(disabled).toMatchObject({ createdBy: "incident-bot", createdByUserId: actorId });
  });

  it("logs a failed action with its reason, and runs nothing while disabled", async () => {
    const failing = await vexil.api(`/api/admin/projects/${project}/actions`, {
      method: "POST",
      body: actionSet({
        name: "Turn on a flag that does not exist",
        match: { source: "signal-endpoint", sourceId: endpoint.id, payload: { "alert.status": { operator: "IN", values: ["resolved"] } } },
        actions: [
          {
            action: "TOGGLE_FEATURE_ON",
            sortOrder: 1,
            executionParams: { project, featureName: "no-such-flag", environment: "development" },
          },
        ],
      }),
    });
    expect(failing.status).toBe(201);
    const set = await failing.json();
    await sendAccepted(endpoint.name, token, { alert: { status: "resolved" }, n: 1 });
    const events = await finishedRuns(project, set.id);
    expect(events).toHaveLength(1);
    expect(events[0]!.state).toBe("failed");
    expect(events[0]!.actionSet.actions[0]).toMatchObject({ state: "failed", details: expect.stringMatching(/no-such-flag/) });

    // Switched off, a matching signal runs nothing; switched on again, the next one runs. A signal
    // is checked against the action sets enabled when it is handled, so the set is switched on only
    // once a second set on the same signals has logged the second one.
    const witness = await vexil.api(`/api/admin/projects/${project}/actions`, {
      method: "POST",
      body: actionSet({
        name: "Witness of the resolved signals",
        match: { source: "signal-endpoint", sourceId: endpoint.id, payload: { "alert.status": { operator: "IN", values: ["resolved"] } } },
        actions: [
          {
            action: "TOGGLE_FEATURE_ON",
            sortOrder: 1,
            executionParams: { project, featureName: "no-such-flag", environment: "development" },
          },
        ],
      }),
    });
    expect(witness.status).toBe(201);
    const witnessSet = await witness.json();
    expect((await vexil.api(`/api/admin/projects/${project}/actions/${set.id}/off`, { method: "POST" })).status).toBe(200);
    await sendAccepted(endpoint.name, token, { alert: { status: "resolved" }, n: 2 });
    expect((await finishedRuns(project, witnessSet.id)).map((e) => e.signal.payload.n)).toEqual([2]);
    expect((await vexil.api(`/api/admin/projects/${project}/actions/${witnessSet.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await vexil.api(`/api/admin/projects/${project}/actions/${set.id}/on`, { method: "POST" })).status).toBe(200);
    await sendAccepted(endpoint.name, token, { alert: { status: "resolved" }, n: 3 });
    expect((await finishedRuns(project, set.id, 2)).map((e) => e.signal.payload.n)).toEqual([3, 1]);
  });

  it("lists the project's action sets, replaces one (PUT: its new filter decides what runs) and deletes one", async () => {
    const url = `/api/admin/projects/${project}/actions`;
    const recovery = actionSet({
      name: "Turn the flag back on when recovered",
      match: { source: "signal-endpoint", sourceId: endpoint.id, payload: { "alert.status": { operator: "IN", values: ["recovered"] } } },
      actions: [{ action: "TOGGLE_FEATURE_ON", sortOrder: 1, executionParams: { project, featureName: flag, environment: "development" } }],
    });
    const set = await vexil.expectStatus(url, { method: "POST", body: recovery }, 201);

    const listed = (await vexil.expectStatus(url, undefined, 200)).actions as Array<{ id: number; name: string; project: string }>;
    expect(listed.map((s) => s.name)).toEqual(
      expect.arrayContaining(["Kill checkout on a firing alert", "Turn the flag back on when recovered"]),
    );
    expect(new Set(listed.map((s) => s.project))).toEqual(new Set([project]));
    expect((await vexil.expectStatus(`/api/admin/projects/${elsewhere}/actions`, undefined, 200)).actions).toEqual([]);

    const replaced = await vexil.expectStatus(
      `${url}/${set.id}`,
      {
        method: "PUT",
        body: {
          ...recovery,
          name: "Turn the flag back on when all clear",
          match: { ...recovery.match, payload: { "alert.status": { operator: "IN", values: ["all-clear"] } } },
        },
      },
      200,
    );
    expect(replaced).toMatchObject({ id: set.id, project, name: "Turn the flag back on when all clear", enabled: true });
    expect((await vexil.expectStatus(url, undefined, 200)).actions.find((s: { id: number }) => s.id === set.id)).toMatchObject({
      name: "Turn the flag back on when all clear",
      match: { payload: { "alert.status": { values: ["all-clear"] } } },
    });

    // The old filter no longer matches, the new one does; signals are handled in order, so once
    // the second is logged the first was passed over.
    expect(await developmentEnabled()).toBe(false);
    await sendAccepted(endpoint.name, token, { alert: { status: "recovered" } });
    await sendAccepted(endpoint.name, token, { alert: { status: "all-clear" } });
    const runs = await finishedRuns(project, set.id);
    expect(runs.map((r) => [r.signal.payload.alert?.status, r.state])).toEqual([["all-clear", "success"]]);
    expect(await waitFor(async () => (await frontendEnabled()) === true, 30_000), "the frontend API still serves the flag off").toBe(true);

    expect((await vexil.api(`${url}/${set.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await vexil.expectStatus(url, undefined, 200)).actions.map((s: { id: number }) => s.id)).not.toContain(set.id);
    await vexil.expectError(`${url}/${set.id}`, { method: "DELETE" }, 404, "NotFoundError");
    await vexil.expectError(`${url}/${set.id}`, { method: "PUT", body: recovery }, 404, "NotFoundError");
  });

  it("refuses to delete a service account an action set runs as (409)", async () => {
    const res = await vexil.api(`/api/admin/service-account/${actorId}`, { method: "DELETE" });
    expect(res.status).toBe(409);
  });
});

describe.skipIf(!available)("service account changes", () => {
  it("renames an account and changes its root role; as a Viewer its action fails for want of permission; deleted once unused", async () => {
    const flag = "viewer-bot-flag";
    await vexil.expectStatus("/api/admin/projects/default/features", { method: "POST", body: { name: flag } }, 201);
    const account = await vexil.expectStatus(
      "/api/admin/service-account",
      { method: "POST", body: { username: "viewer-bot", name: "Bot", rootRole: "Editor" } },
      201,
    );
    const updated = await vexil.expectStatus(
      `/api/admin/service-account/${account.id}`,
      { method: "PUT", body: { name: "Read-only bot", rootRole: "Viewer" } },
      200,
    );
    expect(updated).toMatchObject({ id: account.id, username: "viewer-bot", name: "Read-only bot", rootRole: 3 });
    const { serviceAccounts } = await vexil.expectStatus("/api/admin/service-account", undefined, 200);
    expect(serviceAccounts.find((a: { id: number }) => a.id === account.id)).toMatchObject({ name: "Read-only bot", rootRole: 3 });
    await vexil.expectError("/api/admin/service-account/987654", { method: "PUT", body: { name: "x" } }, 404, "NotFoundError");
    await vexil.expectError(`/api/admin/service-account/${account.id}`, { method: "PUT", body: { rootRole: 42 } }, 400, "ValidationError");

    const endpoint: CreatedEndpoint = await createEndpoint("viewer-bot-alerts");
    const token = await createToken(endpoint.id, "monitoring");
    const url = "/api/admin/projects/default/actions";
    const viewerSet = {
      name: "Switch on as a viewer",
      actorId: account.id,
      match: { source: "signal-endpoint", sourceId: endpoint.id, payload: {} },
      actions: [
        {
          action: "TOGGLE_FEATURE_ON",
          sortOrder: 1,
          executionParams: { project: "default", featureName: flag, environment: "development" },
        },
      ],
    };
    const set = await vexil.expectStatus(url, { method: "POST", body: viewerSet }, 201);
    await sendAccepted(endpoint.name, token, { alert: "any" });
    const [run] = await finishedRuns("default", set.id);
    expect(run).toMatchObject({ state: "failed" });
    expect(run!.actionSet.actions[0]).toMatchObject({ state: "failed", details: expect.stringContaining("permission") });
    const feature = await vexil.expectStatus(`/api/admin/projects/default/features/${flag}`, undefined, 200);
    expect(feature.environments.find((e: { name: string }) => e.name === "development").enabled).toBe(false);

    await vexil.expectError(`/api/admin/service-account/${account.id}`, { method: "DELETE" }, 409, "NameExistsError");
    expect((await vexil.api(`${url}/${set.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await vexil.api(`/api/admin/service-account/${account.id}`, { method: "DELETE" })).status).toBe(200);
    const after = (await vexil.expectStatus("/api/admin/service-account", undefined, 200)).serviceAccounts;
    expect(after.map((a: { id: number }) => a.id)).not.toContain(account.id);
    await vexil.expectError(`/api/admin/service-account/${account.id}`, { method: "DELETE" }, 404, "NotFoundError");
    const orphan = await vexil.expectError(url, { method: "POST", body: viewerSet }, 400, "ValidationError");
    expect(orphan.details?.[0]?.path).toBe("body.actorId");
  });
});
