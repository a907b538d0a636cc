import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterAvailable, startTestSystem, type TestSystem } from "../src/harness.js";
import { natsUrl, redisUrl, waitFor } from "../src/servers.js";
import { sendSignal, signalAdmin, type CreatedEndpoint } from "../src/signals.js";
import { startServiceProcess } from "../src/vexil-process.js";

/**
 * Signal endpoints end to end in cluster mode: admins set up endpoints and their tokens in the
 * admin process; external systems send signals to the signal-ingest process (refused for each
 * kind of bad credential, size and rate). A second ingest process shows the rate limit holds
 * across instances. What action sets do with the signals is `signal-actions.test.ts`.
 */

const available = await clusterAvailable("signals across processes");
/** Room for an endpoint per scenario; the default of 5 is the limits' unit test. */
const endpointLimit = 12;

let vexil: TestSystem;

beforeAll(async () => {
  if (!available) return;
  vexil = await startTestSystem({ mode: "cluster", env: { UNLEASH_SIGNAL_ENDPOINTS_LIMIT: String(endpointLimit) } });
});
afterAll(() => vexil?.stop());

const { createEndpoint, createToken } = signalAdmin(() => vexil);
/** Polls a signal to the gateway until it gets this status; a change reaches signal-ingest over NATS. */
const untilAnswered = (name: string, token: string, status: number) =>
  waitFor(async () => (await sendSignal(vexil.url, name, { token, body: "{}" })).status === status, 30_000, 200);

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
    const none = await sendSignal(vexil.url, "alerts", { body: "{}" });
    expect(none.status).toBe(401);
    expect((await none.json()).name).toBe("AuthenticationRequired");

    const unknown = await sendSignal(vexil.url, "alerts", { token: "Bearer not-a-real-token", body: "{}" });
    expect(unknown.status).toBe(401);

    const foreign = await sendSignal(vexil.url, "alerts", { token: `Bearer ${otherToken}`, body: "{}" });
    expect(foreign.status).toBe(403);
    expect((await foreign.json()).name).toBe("NoAccessError");
  });

  it("answers 404 for a disabled or unknown endpoint, even with that endpoint's token", async () => {
    const disabled = await sendSignal(vexil.url, "switched-off", { token: disabledToken, body: "{}" });
    expect(disabled.status).toBe(404);
    expect((await disabled.json()).name).toBe("NotFoundError");
    expect((await sendSignal(vexil.url, "no-such-endpoint", { token: alertsToken, body: "{}" })).status).toBe(404);
  });

  it("refuses a payload over 100 kB (413) and a body that is not JSON (415)", async () => {
    const big = JSON.stringify({ blob: "x".repeat(101_000) });
    const tooLarge = await sendSignal(vexil.url, "alerts", { token: alertsToken, body: big });
    expect(tooLarge.status).toBe(413);
    expect((await tooLarge.json()).name).toBe("ContentTooLarge");
    const text = await sendSignal(vexil.url, "alerts", { token: alertsToken, body: "alert!", headers: { "content-type": "text/plain" } });
    expect(text.status).toBe(415);
  });

  it("accepts a signal (202) with the bare token or Bearer, stores it with its source, and limits the rate (429, Retry-After)", async () => {
    // The budget is one signal per second of the clock. Signals sent back to back until one is
    // refused: two of them share a second unless each took a second to answer. How the window ends
    // is the rate limit's unit test, which moves a clock of its own instead of waiting.
    const stored: unknown[] = [];
    let refused: Response | undefined;
    for (let n = 1; !refused; n++) {
      expect(n, "every signal took longer than the one-second window").toBeLessThanOrEqual(5);
      const payload = { signal: n };
      const res = await sendSignal(vexil.url, "alerts", { token: `Bearer ${alertsToken}`, body: JSON.stringify(payload) });
      if (n > 1 && res.status === 429) refused = res;
      else {
        expect(res.status).toBe(202);
        stored.unshift(payload);
      }
    }
    expect(refused.headers.get("retry-after")).toBe("1");
    expect((await refused.json()).name).toBe("TooManyRequests");
    // The bare token, on an endpoint whose budget nothing else drew on.
    expect((await sendSignal(vexil.url, "other-endpoint", { token: otherToken, body: JSON.stringify({ bare: true }) })).status).toBe(202);

    const page = await (await vexil.api(`/api/admin/signal-endpoints/${alerts.id}/signals`)).json();
    expect(page.signalEndpointSignals.map((s: { payload: unknown }) => s.payload)).toEqual(stored);
    expect(page.signalEndpointSignals[0]).toMatchObject({ source: "signal-endpoint", sourceId: alerts.id, tokenName: "monitoring" });
    const firstPage = await (await vexil.api(`/api/admin/signal-endpoints/${alerts.id}/signals?limit=1`)).json();
    expect(firstPage.signalEndpointSignals.map((s: { payload: unknown }) => s.payload)).toEqual([stored[0]]);
    const secondPage = await (await vexil.api(`/api/admin/signal-endpoints/${alerts.id}/signals?limit=1&offset=1`)).json();
    expect(secondPage.signalEndpointSignals.map((s: { payload: unknown }) => s.payload)).toEqual(stored.slice(1, 2));
    expect((await vexil.api(`/api/admin/signal-endpoints/${alerts.id}/signals?limit=0`)).status).toBe(400);
  });

  it("follows an endpoint's updates: a renamed endpoint takes signals at its new name only; one switched off by PUT answers 404 until /on", async () => {
    const endpoint = await createEndpoint("before-rename");
    const token = await createToken(endpoint.id, "source");
    const url = `/api/admin/signal-endpoints/${endpoint.id}`;

    const renamed = await vexil.expectStatus(url, { method: "PUT", body: { name: "after-rename", description: "renamed" } }, 200);
    expect(renamed).toMatchObject({ id: endpoint.id, name: "after-rename", description: "renamed", enabled: true });
    expect(renamed.tokens.map((t: { name: string }) => t.name)).toEqual(["source"]);
    const listed = (await vexil.expectStatus("/api/admin/signal-endpoints", undefined, 200)).signalEndpoints;
    expect(listed.filter((e: CreatedEndpoint) => e.id === endpoint.id).map((e: CreatedEndpoint) => e.name)).toEqual(["after-rename"]);
    expect(await untilAnswered("after-rename", token, 202)).toBe(true);
    expect((await sendSignal(vexil.url, "before-rename", { token, body: "{}" })).status).toBe(404);
    await vexil.expectError(url, { method: "PUT", body: { name: "alerts" } }, 409, "NameExistsError");

    expect(await vexil.expectStatus(url, { method: "PUT", body: { enabled: false } }, 200)).toMatchObject({
      name: "after-rename",
      enabled: false,
    });
    expect(await untilAnswered("after-rename", token, 404)).toBe(true);

    expect((await vexil.api(`${url}/on`, { method: "POST" })).status).toBe(200);
    expect(await untilAnswered("after-rename", token, 202)).toBe(true);
    const signals = (await vexil.expectStatus(`${url}/signals`, undefined, 200)).signalEndpointSignals;
    expect(signals.map((s: { tokenName: string }) => s.tokenName)).toEqual(["source", "source"]);
    expect((await vexil.api(url, { method: "DELETE" })).status).toBe(200);
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
        await waitFor(
          async () => [202, 429].includes((await sendSignal(replica.url, "shared-rate", { token, body: "{}" })).status),
          15_000,
        ),
      ).toBe(true);
      // The budget is one signal a second per endpoint, counted from the first. A burst slower than
      // a second (a loaded machine) proves nothing about sharing, so it is sent again, up to 5 times.
      for (let attempt = 1; ; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 1100));
        const started = performance.now();
        const urls = [vexil.url, replica.url];
        const responses = await Promise.all(
          Array.from({ length: 8 }, (_, n) => sendSignal(urls[n % 2]!, "shared-rate", { token, body: JSON.stringify({ n }) })),
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

describe.skipIf(!available)("signal endpoint limit", () => {
  it("allows the configured number of endpoints (UNLEASH_SIGNAL_ENDPOINTS_LIMIT) and refuses one more", async () => {
    const { signalEndpoints } = await (await vexil.api("/api/admin/signal-endpoints")).json();
    for (let i = signalEndpoints.length; i < endpointLimit; i++) await createEndpoint(`filler-${i}`);
    const oneMore = await vexil.api("/api/admin/signal-endpoints", { method: "POST", body: { name: "one-too-many" } });
    expect(oneMore.status).toBe(400);
    expect((await oneMore.json()).message).toMatch(new RegExp(`Only ${endpointLimit} signal endpoints`));
  });
});
