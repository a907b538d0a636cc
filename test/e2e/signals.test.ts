import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterAvailable, startTestSystem, type TestSystem } from "../src/harness.js";
import { natsUrl, redisUrl } from "../src/servers.js";
import { startServiceProcess } from "../src/vexil-process.js";

/**
 * Signals end to end in cluster mode: admins set up endpoints, tokens, a service account and
 * action sets in the admin process; external systems send signals to the signal-ingest process
 * (refused for each kind of bad credential, size and rate); a matching signal reaches admin over
 * NATS and flips a flag through the same path as a user's change, in `default` and in a project
 * created while Vexil runs. A second ingest process shows the rate limit holds across instances.
 */

const available = await clusterAvailable("signals across processes");
/** Room for an endpoint per scenario; the default of 5 is the limits' unit test. */
const endpointLimit = 12;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls every 10 ms until the condition holds; false when it did not within the time. */
async function waitFor(condition: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const until = performance.now() + timeoutMs;
  while (performance.now() < until) {
    if (await condition()) return true;
    await sleep(10);
  }
  return false;
}

let vexil: TestSystem;

beforeAll(async () => {
  if (!available) return;
  vexil = await startTestSystem({ mode: "cluster", env: { UNLEASH_SIGNAL_ENDPOINTS_LIMIT: String(endpointLimit) } });
});
afterAll(() => vexil?.stop());

interface CreatedEndpoint {
  id: number;
  name: string;
}

async function createEndpoint(name: string, body: Record<string, unknown> = {}): Promise<CreatedEndpoint> {
  const res = await vexil.api("/api/admin/signal-endpoints", { method: "POST", body: { name, ...body } });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as CreatedEndpoint;
}

async function createToken(endpointId: number, name: string): Promise<string> {
  const res = await vexil.api(`/api/admin/signal-endpoints/${endpointId}/tokens`, { method: "POST", body: { name } });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { token: string }).token;
}

function send(
  baseUrl: string,
  name: string,
  { token, body, headers = {} }: { token?: string; body?: string; headers?: Record<string, string> } = {},
) {
  return fetch(`${baseUrl}/api/signal-endpoint/${name}`, {
    method: "POST",
    headers: {
      ...(token ? { authorization: token } : {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    body,
  });
}

/** Sends until accepted (202), waiting out the endpoint's one-signal-a-second budget when told to (429). */
async function sendAccepted(name: string, token: string, payload: unknown): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await send(vexil.url, name, { token, body: JSON.stringify(payload) });
    if (res.status === 202) return;
    expect(res.status, await res.text()).toBe(429);
    if (Date.now() > deadline) throw new Error(`signal to ${name} still refused after 15 s`);
    await sleep(Number(res.headers.get("retry-after")) * 1000);
  }
}

describe.skipIf(!available)("signal endpoints: the admin API", () => {
  it("creates an endpoint, refuses a duplicate name (409) and a name that is not URL-safe (400)", async () => {
    const created = await createEndpoint("admin-api-endpoint", { description: "for the admin tests" });
    expect(created).toMatchObject({ name: "admin-api-endpoint", enabled: true, description: "for the admin tests", tokens: [] });

    const duplicate = await vexil.api("/api/admin/signal-endpoints", { method: "POST", body: { name: "admin-api-endpoint" } });
    expect(duplicate.status).toBe(409);
    expect((await duplicate.json()).name).toBe("NameExistsError");

    const unsafe = await vexil.api("/api/admin/signal-endpoints", { method: "POST", body: { name: "has spaces/and slashes" } });
    expect(unsafe.status).toBe(400);
    const error = await unsafe.json();
    expect(error.name).toBe("ValidationError");
    expect(error.message).toMatch(/name/);

    expect((await vexil.api(`/api/admin/signal-endpoints/${created.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await vexil.api(`/api/admin/signal-endpoints/${created.id}`, { method: "DELETE" })).status).toBe(404);
  });

  it("answers 401 without credentials, 403 to a client token, 404 for an unknown id", async () => {
    expect((await vexil.api("/api/admin/signal-endpoints", { token: null })).status).toBe(401);
    const forbidden = await vexil.api("/api/admin/signal-endpoints", {
      method: "POST",
      body: { name: "nope" },
      token: vexil.tokens.client,
    });
    expect(forbidden.status).toBe(403);
    expect((await forbidden.json()).name).toBe("NoAccessError");
    const missing = await vexil.api("/api/admin/signal-endpoints/9999", { method: "PUT", body: { description: "x" } });
    expect(missing.status).toBe(404);
    expect((await vexil.api("/api/admin/signal-endpoints/9999/tokens")).status).toBe(404);
  });

  it("refuses a body that is not JSON (415) or too large (413)", async () => {
    const notJson = await vexil.api("/api/admin/signal-endpoints", {
      method: "POST",
      body: "name=plain",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(notJson.status).toBe(415);
    const huge = await vexil.api("/api/admin/signal-endpoints", {
      method: "POST",
      body: { name: "huge", description: "x".repeat(150_000) },
    });
    expect(huge.status).toBe(413);
  });

  it("shows a token's secret once, lists tokens without secrets, renames and deletes them, at most 5 per endpoint", async () => {
    const endpoint = await createEndpoint("token-limits");
    const secret = await createToken(endpoint.id, "source-1");
    expect(secret.length).toBeGreaterThan(20);

    const list = await (await vexil.api(`/api/admin/signal-endpoints/${endpoint.id}/tokens`)).json();
    expect(list.signalEndpointTokens).toHaveLength(1);
    expect(list.signalEndpointTokens[0]).toMatchObject({ name: "source-1", signalEndpointId: endpoint.id });
    expect(JSON.stringify(list)).not.toContain(secret);
    const tokenId = list.signalEndpointTokens[0].id as number;

    const renamed = await vexil.api(`/api/admin/signal-endpoints/${endpoint.id}/tokens/${tokenId}`, {
      method: "PUT",
      body: { name: "renamed" },
    });
    expect(renamed.status).toBe(200);
    const endpoints = await (await vexil.api("/api/admin/signal-endpoints")).json();
    const listed = endpoints.signalEndpoints.find((e: CreatedEndpoint) => e.id === endpoint.id);
    expect(listed.tokens.map((t: { name: string }) => t.name)).toEqual(["renamed"]);

    for (let i = 2; i <= 5; i++) await createToken(endpoint.id, `source-${i}`);
    const sixth = await vexil.api(`/api/admin/signal-endpoints/${endpoint.id}/tokens`, { method: "POST", body: { name: "source-6" } });
    expect(sixth.status).toBe(400);
    expect((await sixth.json()).message).toMatch(/at most 5 tokens/);

    expect((await vexil.api(`/api/admin/signal-endpoints/${endpoint.id}/tokens/${tokenId}`, { method: "DELETE" })).status).toBe(200);
    expect((await vexil.api(`/api/admin/signal-endpoints/${endpoint.id}/tokens/${tokenId}`, { method: "DELETE" })).status).toBe(404);
    const emptyName = await vexil.api(`/api/admin/signal-endpoints/${endpoint.id}/tokens`, { method: "POST", body: { name: "" } });
    expect(emptyName.status).toBe(400);
    // Keeps this file within the default limit of 5 endpoints that the last test checks.
    expect((await vexil.api(`/api/admin/signal-endpoints/${endpoint.id}`, { method: "DELETE" })).status).toBe(200);
  });
});

describe.skipIf(!available)("signal endpoints: ingestion", () => {
  let alerts: CreatedEndpoint;
  let alertsToken: string;
  let otherToken: string;
  let disabledToken: string;

  beforeAll(async () => {
    alerts = await createEndpoint("alerts");
    alertsToken = await createToken(alerts.id, "monitoring");
    const other = await createEndpoint("other-endpoint");
    otherToken = await createToken(other.id, "ci");
    const disabled = await createEndpoint("switched-off");
    disabledToken = await createToken(disabled.id, "ci");
    expect((await vexil.api(`/api/admin/signal-endpoints/${disabled.id}/off`, { method: "POST" })).status).toBe(200);
  });

  it("refuses each kind of bad credential: none (401), unknown (401), another endpoint's (403)", async () => {
    const none = await send(vexil.url, "alerts", { body: "{}" });
    expect(none.status).toBe(401);
    expect((await none.json()).name).toBe("AuthenticationRequired");

    const unknown = await send(vexil.url, "alerts", { token: "Bearer not-a-real-token", body: "{}" });
    expect(unknown.status).toBe(401);

    const foreign = await send(vexil.url, "alerts", { token: `Bearer ${otherToken}`, body: "{}" });
    expect(foreign.status).toBe(403);
    expect((await foreign.json()).name).toBe("NoAccessError");
  });

  it("answers 404 for a disabled or unknown endpoint, even with that endpoint's token", async () => {
    const disabled = await send(vexil.url, "switched-off", { token: disabledToken, body: "{}" });
    expect(disabled.status).toBe(404);
    expect((await disabled.json()).name).toBe("NotFoundError");
    expect((await send(vexil.url, "no-such-endpoint", { token: alertsToken, body: "{}" })).status).toBe(404);
  });

  it("refuses a payload over 100 kB (413) and a body that is not JSON (415)", async () => {
    const big = JSON.stringify({ blob: "x".repeat(101_000) });
    const tooLarge = await send(vexil.url, "alerts", { token: alertsToken, body: big });
    expect(tooLarge.status).toBe(413);
    expect((await tooLarge.json()).name).toBe("ContentTooLarge");
    const text = await send(vexil.url, "alerts", { token: alertsToken, body: "alert!", headers: { "content-type": "text/plain" } });
    expect(text.status).toBe(415);
  });

  it("accepts a signal (202) with the bare token or Bearer, stores it with its source, and limits the rate (429, Retry-After)", async () => {
    const accepted = await send(vexil.url, "alerts", { token: `Bearer ${alertsToken}`, body: JSON.stringify({ first: true }) });
    expect(accepted.status).toBe(202);
    const burst = await send(vexil.url, "alerts", { token: alertsToken, body: JSON.stringify({ second: true }) });
    expect(burst.status).toBe(429);
    expect(burst.headers.get("retry-after")).toBe("1");
    expect((await burst.json()).name).toBe("TooManyRequests");

    await sleep(1100);
    const bare = await send(vexil.url, "alerts", { token: alertsToken, body: JSON.stringify({ third: true }) });
    expect(bare.status).toBe(202);

    const page = await (await vexil.api(`/api/admin/signal-endpoints/${alerts.id}/signals`)).json();
    expect(page.signalEndpointSignals.map((s: { payload: unknown }) => s.payload)).toEqual([{ third: true }, { first: true }]);
    expect(page.signalEndpointSignals[0]).toMatchObject({ source: "signal-endpoint", sourceId: alerts.id, tokenName: "monitoring" });
    const second = await (await vexil.api(`/api/admin/signal-endpoints/${alerts.id}/signals?limit=1&offset=1`)).json();
    expect(second.signalEndpointSignals.map((s: { payload: unknown }) => s.payload)).toEqual([{ first: true }]);
    expect((await vexil.api(`/api/admin/signal-endpoints/${alerts.id}/signals?limit=0`)).status).toBe(400);
  });

  it("holds the rate limit across two ingest processes sharing Redis", async () => {
    const endpoint = await createEndpoint("shared-rate");
    const token = await createToken(endpoint.id, "burst");

    // A second ingest process, as a deployment adds a replica: the same NATS and Redis, its own
    // store; it learns the endpoints admin shares there.
    const dir = await mkdtemp(path.join(tmpdir(), "vexil-ingest-"));
    const namespace = vexil.namespace!;
    const replica = await startServiceProcess("signal-ingest", {
      dataDir: dir,
      env: { NATS_URL: natsUrl, REDIS_URL: redisUrl, NATS_STREAM: namespace, NATS_NAMESPACE: namespace, REDIS_KEY_PREFIX: `${namespace}:` },
    });
    try {
      // The replica knows the endpoint once it accepts a signal for it (or refuses one for the rate).
      expect(
        await waitFor(async () => [202, 429].includes((await send(replica.url, "shared-rate", { token, body: "{}" })).status), 15_000),
      ).toBe(true);
      // The budget is one signal a second per endpoint, counted from the first. A burst slower than
      // a second (a loaded machine) proves nothing about sharing, so it is sent again, up to 5 times.
      for (let attempt = 1; ; attempt++) {
        await sleep(1100);
        const started = performance.now();
        const urls = [vexil.url, replica.url];
        const responses = await Promise.all(
          Array.from({ length: 8 }, (_, n) => send(urls[n % 2]!, "shared-rate", { token, body: JSON.stringify({ n }) })),
        );
        if (performance.now() - started >= 1000) {
          expect(attempt, "every burst of 8 took longer than the one-second window").toBeLessThan(5);
          continue;
        }
        const statuses = responses.map((r) => r.status);
        // One second's budget (1) for the burst as a whole, wherever the requests landed.
        expect(statuses.filter((s) => s === 202)).toHaveLength(1);
        expect(statuses.filter((s) => s === 429)).toHaveLength(7);
        for (const own of [0, 1].map((i) => statuses.filter((_, n) => n % 2 === i))) expect(own).toContain(429);
        for (const r of responses.filter((r) => r.status === 429)) expect(r.headers.get("retry-after")).toBe("1");
        break;
      }
    } finally {
      await replica.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

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
  let frontendToken: string;

  beforeAll(async () => {
    if (!available) return;
    if (project !== "default") await vexil.createProject(project);
    endpoint = await createEndpoint(`incidents-${project}`);
    token = await createToken(endpoint.id, "pagerduty");
    actorId = await incidentBot();
    frontendToken = await vexil.createApiToken({ type: "frontend", projects: [project] });
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

    // The frontend API, through a token for this project only, reports the flag on.
    const frontendEnabled = async (): Promise<boolean | undefined> => {
      const res = await vexil.api("/api/frontend", { token: frontendToken });
      if (res.status !== 200) return undefined;
      return ((await res.json()).toggles as Array<{ name: string }>).some((t) => t.name === flag);
    };
    expect(await waitFor(async () => (await frontendEnabled()) === true, 15_000)).toBe(true);

    // A signal the filter does not match runs nothing: the log below holds only the firing one,
    // and signals are handled in the order they came.
    await sendAccepted(endpoint.name, token, { alert: { status: "resolved" } });
    await sendAccepted(endpoint.name, token, { alert: { status: "firing", name: "checkout 5xx" } });
    expect(await waitFor(async () => (await frontendEnabled()) === false, 15_000), "the frontend API still serves the flag on").toBe(true);
    expect(await developmentEnabled()).toBe(false);

    // The log entry is finished right after the flag changed.
    let log = { actionSetEvents: [] as Array<{ state: string }> };
    await waitFor(async () => {
      log = await (await vexil.api(`/api/admin/projects/${project}/actions/${set.id}/events`)).json();
      return log.actionSetEvents[0]?.state !== "started";
    }, 5000);
    expect(log.actionSetEvents).toHaveLength(1);
    expect(log.actionSetEvents[0]).toMatchObject({
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
    const log = async () =>
      (await vexil.expectStatus(`/api/admin/projects/${project}/actions/${set.id}/events`, undefined, 200)).actionSetEvents as Array<{
        state: string;
        signal: { payload: { n?: number } };
        actionSet: { actions: Array<{ state: string; details?: string }> };
      }>;
    await sendAccepted(endpoint.name, token, { alert: { status: "resolved" }, n: 1 });
    expect(await waitFor(async () => ["failed", "success"].includes((await log())[0]?.state ?? ""), 15_000)).toBe(true);
    const events = await log();
    expect(events).toHaveLength(1);
    expect(events[0]!.state).toBe("failed");
    expect(events[0]!.actionSet.actions[0]).toMatchObject({ state: "failed", details: expect.stringMatching(/no-such-flag/) });

    // Switched off, a matching signal runs nothing; switched on again, the next one runs. Signals
    // are handled in order, so once the third is logged the second was passed over.
    expect((await vexil.api(`/api/admin/projects/${project}/actions/${set.id}/off`, { method: "POST" })).status).toBe(200);
    await sendAccepted(endpoint.name, token, { alert: { status: "resolved" }, n: 2 });
    expect((await vexil.api(`/api/admin/projects/${project}/actions/${set.id}/on`, { method: "POST" })).status).toBe(200);
    await sendAccepted(endpoint.name, token, { alert: { status: "resolved" }, n: 3 });
    expect(await waitFor(async () => (await log()).some((e) => e.signal.payload.n === 3 && e.state !== "started"), 15_000)).toBe(true);
    expect((await log()).map((e) => e.signal.payload.n)).toEqual([3, 1]);
  });

  it("refuses to delete a service account an action set runs as (409)", async () => {
    const res = await vexil.api(`/api/admin/service-account/${actorId}`, { method: "DELETE" });
    expect(res.status).toBe(409);
  });
});

describe.skipIf(!available)("signal endpoint limit", () => {
  it("allows the configured number of endpoints (UNLEASH_SIGNAL_ENDPOINTS_LIMIT) and refuses one more", async () => {
    const { signalEndpoints } = await (await vexil.api("/api/admin/signal-endpoints")).json();
    for (let i = signalEndpoints.length; i < endpointLimit; i++) await createEndpoint(`filler-${i}`);
    const oneMore = await vexil.api("/api/admin/signal-endpoints", { method: "POST", body: { name: "one-too-many" } });
    expect(oneMore.status).toBe(400);
    expect((await oneMore.json()).message).toMatch(new RegExp(`Only ${endpointLimit} signal endpoints`));
  });
});
