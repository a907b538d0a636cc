import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestSystem, type TestSystem } from "../src/harness.js";
import { closedPort, startReceiver, type Receiver } from "./addons-receiver.js";

let vexil: TestSystem;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  vexil = await startTestSystem({
    env: {
      ADDONS_ALLOW_PRIVATE_URLS: "true",
      ADDONS_MAX_ATTEMPTS: "3",
      ADDONS_BACKOFF_BASE_MS: "20",
      ADDONS_BACKOFF_MAX_MS: "100",
      ADDONS_REQUEST_TIMEOUT_MS: "2000",
      UNLEASH_URL: "https://flags.example.com",
    },
  });
});
afterAll(async () => {
  await vexil?.stop();
  await receiver?.close();
});

// Deliveries go through the outbox, the bus and a queue per addon: seconds on a loaded machine.
const waitLong = { timeout: 60_000, interval: 25 };
let flagCounter = 0;
const uniqueFlag = (prefix: string) => `${prefix}-${++flagCounter}-${Date.now()}`;

async function createAddon(body: Record<string, unknown>): Promise<{ id: number }> {
  const res = await vexil.api("/api/admin/addons", { method: "POST", body: { enabled: true, ...body } });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}
async function createFlag(name: string, project = "default") {
  const res = await vexil.api(`/api/admin/projects/${project}/features`, { method: "POST", body: { name } });
  expect(res.status, await res.clone().text()).toBe(201);
}
async function enableIn(name: string, environment: string, project = "default") {
  const res = await vexil.api(`/api/admin/projects/${project}/features/${name}/environments/${environment}/on`, { method: "POST" });
  expect(res.status, await res.clone().text()).toBe(200);
}
async function deliveryLog(addonId: number) {
  const res = await vexil.api(`/api/admin/addons/${addonId}/events?limit=100`);
  expect(res.status).toBe(200);
  return (await res.json()).integrationEvents as Array<{
    state: string;
    stateDetails: string;
    integrationId: number;
    event: { type: string; featureName: string };
    details: { statusCode: number | null; attempt: number; idempotencyKey: string };
  }>;
}
const bodies = (path: string) => receiver.on(path).map((r) => JSON.parse(r.body));

describe("addon configuration API", () => {
  const webhook = {
    provider: "webhook",
    parameters: { url: "http://127.0.0.1:9/x", authorization: "Bearer s3cret" },
    events: ["feature-created"],
  };

  it("creates (200), lists with provider definitions, gets, updates and deletes, never showing secrets", async () => {
    const created = await createAddon({ ...webhook, description: "ci hook" });
    expect(created).toMatchObject({
      id: expect.any(Number),
      provider: "webhook",
      description: "ci hook",
      enabled: true,
      projects: [],
      environments: [],
    });
    expect(created).toMatchObject({ parameters: { url: "*****", authorization: "*****" } });

    const list = await (await vexil.api("/api/admin/addons")).json();
    expect(list.addons.map((a: { id: number }) => a.id)).toContain(created.id);
    expect(JSON.stringify(list)).not.toContain("s3cret");
    const slack = list.providers.find((p: { name: string }) => p.name === "slack");
    expect(slack.parameters.map((p: { name: string }) => p.name)).toEqual([
      "url",
      "username",
      "emojiIcon",
      "defaultChannel",
      "customHeaders",
    ]);
    expect(slack.parameters[0]).toMatchObject({ displayName: "Slack webhook URL", type: "url", required: true, sensitive: true });
    expect(list.providers.map((p: { name: string }) => p.name)).toEqual(["webhook", "slack", "teams", "datadog"]);

    const updated = await vexil.api(`/api/admin/addons/${created.id}`, {
      method: "PUT",
      body: { ...webhook, enabled: false, parameters: { url: "*****", authorization: "*****", contentType: "text/plain" } },
    });
    expect(updated.status).toBe(200);
    expect(await updated.json()).toMatchObject({
      enabled: false,
      parameters: { url: "*****", authorization: "*****", contentType: "text/plain" },
    });
    expect((await vexil.api(`/api/admin/addons/${created.id}`)).status).toBe(200);

    expect((await vexil.api(`/api/admin/addons/${created.id}`, { method: "DELETE" })).status).toBe(200);
    const gone = await vexil.api(`/api/admin/addons/${created.id}`);
    expect(gone.status).toBe(404);
    expect((await gone.json()).name).toBe("NotFoundError");
    expect((await vexil.api(`/api/admin/addons/${created.id}/events`)).status).toBe(404);
  });

  it("records addon-config events in the event log without parameters", async () => {
    const { id } = await createAddon(webhook);
    const res = await vexil.api("/api/admin/events?type=addon-config-created");
    expect(res.status).toBe(200);
    const { events } = await res.json();
    const mine = events.find((e: { data: { id: number } }) => e.data?.id === id);
    expect(mine).toMatchObject({ type: "addon-config-created", data: { provider: "webhook" } });
    expect(JSON.stringify(mine)).not.toContain("s3cret");
  });

  it.each([
    ["an unknown provider", { ...webhook, provider: "carrier-pigeon" }, /Unknown addon provider/],
    ["a missing required parameter", { ...webhook, parameters: {} }, /Missing required parameter 'url'/],
    ["an unknown event type", { ...webhook, events: ["feature-exploded"] }, /Unknown event type 'feature-exploded'/],
    ["a missing field", { provider: "webhook", parameters: { url: "http://127.0.0.1:9" } }, /body\.(enabled|events)/],
    ["a non-http URL", { ...webhook, parameters: { url: "gopher://127.0.0.1" } }, /http or https/],
  ])("answers 400 for %s", async (_case, body, message) => {
    const res = await vexil.api("/api/admin/addons", { method: "POST", body: { enabled: true, ...body } });
    expect(res.status).toBe(400);
    const error = await res.json();
    expect(error).toMatchObject({ id: expect.any(String), name: "ValidationError" });
    expect(`${error.message} ${JSON.stringify(error.details)}`).toMatch(message);
  });

  it("answers 401 without a token, 403 to a client token, 413 to a huge body and 415 to a non-JSON body", async () => {
    const body = { ...webhook, enabled: true };
    const unauthenticated = await vexil.api("/api/admin/addons", { method: "POST", body, token: null });
    expect(unauthenticated.status).toBe(401);
    expect((await unauthenticated.json()).name).toBe("AuthenticationRequired");
    const client = await vexil.api("/api/admin/addons", { method: "POST", body, token: vexil.tokens.client });
    expect(client.status).toBe(403);
    expect((await client.json()).name).toBe("NoAccessError");
    const huge = await vexil.api("/api/admin/addons", { method: "POST", body: { ...body, description: "x".repeat(120_000) } });
    expect(huge.status).toBe(413);
    expect((await huge.json()).name).toBe("ContentTooLarge");
    const text = await vexil.api("/api/admin/addons", {
      method: "POST",
      body: JSON.stringify(body),
      headers: { "content-type": "text/plain" },
    });
    expect(text.status).toBe(415);
    expect((await text.json()).name).toBe("ContentTypeerror");
  });

  it("answers 400 for a non-numeric id", async () => {
    expect((await vexil.api("/api/admin/addons/abc")).status).toBe(400);
  });
});

/**
 * Each scenario in `default` and in a project created while Vexil runs. Receiver paths carry the
 * project, and each test removes the addons it made, so one scenario never hears another's events.
 */
describe.each(["default", "addons-fresh"])("delivery to a real HTTP receiver, flags in project %s", (project) => {
  const made: number[] = [];
  const path = (suffix: string) => `/${project}${suffix}`;
  const addon = async (body: Record<string, unknown>) => {
    const created = await createAddon(body);
    made.push(created.id);
    return created;
  };
  beforeAll(async () => {
    if (project !== "default") await vexil.createProject(project);
  });
  afterEach(async () => {
    for (const id of made.splice(0)) expect((await vexil.api(`/api/admin/addons/${id}`, { method: "DELETE" })).status).toBe(200);
    receiver.respondWith(() => 200);
  });

  it("filters by event type, project and environment", async () => {
    const all = await addon({
      provider: "webhook",
      parameters: { url: receiver.url(path("/filter/all-created")) },
      events: ["feature-created"],
    });
    const dev = await addon({
      provider: "webhook",
      parameters: { url: receiver.url(path("/filter/dev-enabled")) },
      events: ["feature-environment-enabled"],
      projects: [project],
      environments: ["development"],
    });
    const prodEnabled = await addon({
      provider: "webhook",
      parameters: { url: receiver.url(path("/filter/prod-enabled")) },
      events: ["feature-environment-enabled"],
      environments: ["production"],
    });
    const otherProject = await addon({
      provider: "webhook",
      parameters: { url: receiver.url(path("/filter/other-project")) },
      events: ["feature-created"],
      projects: ["elsewhere"],
    });
    // An environment filter never matches an event that has no environment (feature-created).
    const createdInDev = await addon({
      provider: "webhook",
      parameters: { url: receiver.url(path("/filter/created-in-dev")) },
      events: ["feature-created"],
      environments: ["development"],
    });
    const disabled = await addon({
      provider: "webhook",
      enabled: false,
      parameters: { url: receiver.url(path("/filter/disabled")) },
      events: ["feature-created"],
    });

    const flag = uniqueFlag("filtered");
    await createFlag(flag, project);
    await enableIn(flag, "development", project);

    await vi.waitFor(() => {
      expect(bodies(path("/filter/all-created")).map((b) => b.featureName)).toContain(flag);
      expect(bodies(path("/filter/dev-enabled")).map((b) => b.featureName)).toContain(flag);
    }, waitLong);
    const created = bodies(path("/filter/all-created")).find((b) => b.featureName === flag);
    expect(created).toMatchObject({ type: "feature-created", project, featureName: flag, id: expect.any(String) });
    expect(bodies(path("/filter/dev-enabled")).find((b) => b.featureName === flag)).toMatchObject({
      type: "feature-environment-enabled",
      environment: "development",
    });
    const request = receiver.on(path("/filter/all-created")).find((r) => JSON.parse(r.body).featureName === flag)!;
    expect(request.headers["idempotency-key"]).toBe(`${created.id}:${all.id}`);
    expect(request.headers["x-vexil-delivery"]).toBe(`${created.id}:${all.id}`);
    // A barrier: events are matched to addons one at a time in stream order, so once a later event
    // reached its addon, the flag's events have been matched to every addon and a delivery wrongly
    // queued for one is in its log.
    const marker = uniqueFlag("filtered-marker");
    await createFlag(marker, project);
    await vi.waitFor(() => expect(bodies(path("/filter/all-created")).map((b) => b.featureName)).toContain(marker), waitLong);
    for (const [label, quiet] of Object.entries({ prodEnabled, otherProject, createdInDev, disabled })) {
      expect(
        (await deliveryLog(quiet.id)).filter((entry) => entry.event.featureName === flag),
        label,
      ).toEqual([]);
    }
    for (const quiet of ["/filter/prod-enabled", "/filter/other-project", "/filter/created-in-dev", "/filter/disabled"]) {
      expect(receiver.on(path(quiet)), quiet).toEqual([]);
    }
    expect((await deliveryLog(dev.id)).map((e) => e.state)).toEqual(["success"]);
  });

  it("renders a body template with the event's fields and sends the configured headers", async () => {
    await addon({
      provider: "webhook",
      parameters: {
        url: receiver.url(path("/template")),
        contentType: "text/plain",
        authorization: "Bearer hook-secret",
        customHeaders: JSON.stringify({ "X-Team": "payments" }),
        bodyTemplate: "{{event.type}} of {{event.featureName}} in {{event.project}} by {{event.createdBy}} | {{{eventJson}}}",
      },
      events: ["feature-created"],
    });
    const flag = uniqueFlag("templated");
    await createFlag(flag, project);
    await vi.waitFor(() => expect(receiver.on(path("/template")).some((r) => r.body.includes(flag))).toBe(true), waitLong);
    const request = receiver.on(path("/template")).find((r) => r.body.includes(flag))!;
    const [text, json] = request.body.split(" | ");
    expect(text).toMatch(new RegExp(`^feature-created of ${flag} in ${project} by \\S+$`));
    expect(JSON.parse(json)).toMatchObject({ type: "feature-created", featureName: flag });
    expect(request.headers).toMatchObject({ "content-type": "text/plain", authorization: "Bearer hook-secret", "x-team": "payments" });
  });

  it("retries a target that fails twice, then delivers once (three attempts)", async () => {
    receiver.respondWith((req, count) => (req.path === path("/flaky") && count <= 2 ? 503 : 200));
    const { id } = await addon({ provider: "webhook", parameters: { url: receiver.url(path("/flaky")) }, events: ["feature-created"] });
    const flag = uniqueFlag("flaky");
    await createFlag(flag, project);
    await vi.waitFor(async () => expect((await deliveryLog(id))[0]?.state).toBe("success"), waitLong);
    const attempts = receiver.on(path("/flaky"));
    expect(attempts.map((r) => r.status)).toEqual([503, 503, 200]);
    expect(new Set(attempts.map((r) => r.headers["idempotency-key"])).size).toBe(1);
    expect(receiver.answered(path("/flaky"))).toHaveLength(1);
    const log = await deliveryLog(id);
    expect(log.map((e) => [e.state, e.details.statusCode, e.details.attempt])).toEqual([
      ["success", 200, 3],
      ["retrying", 503, 2],
      ["retrying", 503, 1],
    ]);
    expect(log[0]).toMatchObject({ integrationId: id, event: { type: "feature-created", featureName: flag } });
    receiver.respondWith(() => 200);
  });

  it("records a delivery to a target down past the limit as failed, visible in the delivery log", async () => {
    const port = await closedPort();
    const { id } = await addon({
      provider: "webhook",
      parameters: { url: `http://127.0.0.1:${port}/down` },
      events: ["feature-created"],
    });
    await createFlag(uniqueFlag("unheard"), project);
    await vi.waitFor(async () => expect((await deliveryLog(id))[0]?.state).toBe("failed"), waitLong);
    const log = await deliveryLog(id);
    expect(log.map((e) => e.state)).toEqual(["failed", "retrying", "retrying"]);
    expect(log[0].stateDetails).toMatch(/ECONNREFUSED.*gave up after 3 attempts/);
    expect(log[0].details.statusCode).toBeNull();
  });

  it("delivers a burst of 100 events in order to each addon, each once", async () => {
    await addon({
      provider: "webhook",
      parameters: { url: receiver.url(path("/burst/a")) },
      events: ["feature-created"],
      projects: [project],
    });
    await addon({ provider: "webhook", parameters: { url: receiver.url(path("/burst/b")) }, events: ["feature-created"] });
    const prefix = uniqueFlag("burst");
    const names = Array.from({ length: 100 }, (_, i) => `${prefix}-${String(i).padStart(3, "0")}`);
    // Twenty at a time, concurrently: the event order is the commit order, not the request order.
    for (let i = 0; i < names.length; i += 20) await Promise.all(names.slice(i, i + 20).map((name) => createFlag(name, project)));
    const arrived = (target: string) =>
      bodies(path(target)).filter((b: { featureName: string }) => b.featureName.startsWith(`${prefix}-`)) as Array<{
        id: string;
        featureName: string;
      }>;
    await vi.waitFor(
      () => {
        expect(arrived("/burst/a")).toHaveLength(100);
        expect(arrived("/burst/b")).toHaveLength(100);
      },
      { timeout: 90_000, interval: 50 },
    );
    for (const target of ["/burst/a", "/burst/b"]) {
      const ids = arrived(target).map((b) => Number(b.id));
      expect(ids, `${target} in event order`).toEqual([...ids].sort((x, y) => x - y));
      expect(new Set(arrived(target).map((b) => b.featureName))).toEqual(new Set(names));
    }
    expect(arrived("/burst/a")).toEqual(arrived("/burst/b"));
  });

  it("applies a change of subscribed events to the next event without a restart", async () => {
    const { id } = await addon({ provider: "webhook", parameters: { url: receiver.url(path("/changing")) }, events: ["feature-created"] });
    const first = uniqueFlag("before-change");
    await createFlag(first, project);
    await vi.waitFor(() => expect(bodies(path("/changing")).map((b) => b.type)).toEqual(["feature-created"]), waitLong);
    const res = await vexil.api(`/api/admin/addons/${id}`, {
      method: "PUT",
      body: { provider: "webhook", enabled: true, parameters: { url: "*****" }, events: ["feature-environment-enabled"] },
    });
    expect(res.status).toBe(200);
    const second = uniqueFlag("after-change");
    await createFlag(second, project);
    await enableIn(second, "production", project);
    await vi.waitFor(
      () => expect(bodies(path("/changing")).map((b) => b.type)).toEqual(["feature-created", "feature-environment-enabled"]),
      waitLong,
    );
    expect(bodies(path("/changing"))[1]).toMatchObject({ featureName: second, environment: "production" });
  });
});
