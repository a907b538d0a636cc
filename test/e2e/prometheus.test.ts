import { randomUUID } from "node:crypto";
import parsePrometheusTextFormat, { type MetricFamily } from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterAvailable, privateBackendEnv, removeNamespace } from "../src/harness.js";
import { waitFor } from "../src/servers.js";
import { tokenSecret } from "../src/tokens.js";
import { startVexilProcess, type VexilProcess } from "../src/vexil-process.js";

/**
 * `/internal-backstage/prometheus` and `/metrics` of a running Vexil, read with a Prometheus
 * text-format parser: the counters move with the traffic sent, per route template.
 */
const tokens = {
  admin: tokenSecret("*", "*"),
  client: tokenSecret("*", "development"),
};
const tokenEnv = { INIT_ADMIN_API_TOKENS: tokens.admin, INIT_CLIENT_API_TOKENS: tokens.client };

async function scrape(url: string, init?: RequestInit): Promise<{ text: string; families: Map<string, MetricFamily> }> {
  const res = await fetch(url, init);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain;.*version=0\.0\.4/);
  return { text, families: new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family])) };
}

/** The value of the sample of `name` whose labels include `labels` (0 when there is none yet). */
function valueOf(families: Map<string, MetricFamily>, name: string, labels: Record<string, string> = {}): number {
  const sample = families.get(name)?.metrics.find((m) => Object.entries(labels).every(([key, value]) => m.labels?.[key] === value));
  if (!sample) return 0;
  return Number(sample.value ?? sample.count);
}

/**
 * The parser above folds a labelled histogram into one bucket map (it is made for unlabelled ones):
 * read a labelled histogram's `_count` from its line instead.
 */
function histogramCount(text: string, name: string, labels: Record<string, string>): number {
  const line = text
    .split("\n")
    .find((l) => l.startsWith(`${name}_count{`) && Object.entries(labels).every(([key, value]) => l.includes(`${key}="${value}"`)));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

function call(vexil: VexilProcess, path: string, init: { method?: string; body?: unknown; token?: string } = {}) {
  return fetch(`${vexil.url}${path}`, {
    method: init.method ?? "GET",
    headers: { authorization: init.token ?? tokens.admin, ...(init.body ? { "content-type": "application/json" } : {}) },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
}

async function createFlag(vexil: VexilProcess, project: string, name: string) {
  expect((await call(vexil, `/api/admin/projects/${project}/features`, { method: "POST", body: { name } })).status).toBe(201);
  const on = await call(vexil, `/api/admin/projects/${project}/features/${name}/environments/development/on`, { method: "POST" });
  expect(on.status).toBe(200);
}

describe("Prometheus metrics of `npm start` (the compiled gateway)", () => {
  let vexil: VexilProcess;
  const metricsUrl = () => `${vexil.url}/internal-backstage/prometheus`;

  beforeAll(async () => {
    vexil = await startVexilProcess({ env: tokenEnv });
  });
  afterAll(async () => {
    await vexil?.stop();
  });

  it("counts requests per route template, in the default and a fresh project, and never shows a raw path", async () => {
    const project = `metrics-${randomUUID().slice(0, 6)}`;
    expect((await call(vexil, "/api/admin/projects", { method: "POST", body: { id: project, name: project } })).status).toBe(201);
    const flags = [`secret-launch-${randomUUID().slice(0, 6)}`, `other-launch-${randomUUID().slice(0, 6)}`];
    const before = await scrape(metricsUrl());
    const clientRoute = { method: "GET", route: "/api/client/features", status: "200" };
    const createRoute = { method: "POST", route: "/api/admin/projects/:projectId/features", status: "201" };

    await createFlag(vexil, "default", flags[0]!);
    await createFlag(vexil, project, flags[1]!);
    for (let i = 0; i < 3; i++) expect((await call(vexil, "/api/client/features", { token: tokens.client })).status).toBe(200);
    expect((await call(vexil, `/api/admin/projects/${project}/features/no-such-flag`)).status).toBe(404);

    const after = await scrape(metricsUrl());
    expect(valueOf(after.families, "vexil_http_requests_total", clientRoute)).toBe(
      valueOf(before.families, "vexil_http_requests_total", clientRoute) + 3,
    );
    expect(valueOf(after.families, "vexil_http_requests_total", createRoute)).toBe(
      valueOf(before.families, "vexil_http_requests_total", createRoute) + 2,
    );
    expect(histogramCount(after.text, "vexil_http_request_duration_seconds", clientRoute)).toBe(
      histogramCount(before.text, "vexil_http_request_duration_seconds", clientRoute) + 3,
    );
    expect(after.families.get("vexil_http_request_duration_seconds")?.type).toBe("HISTOGRAM");
    // Flag names, project ids and secrets stay out: only templates are labels.
    for (const word of [...flags, project, tokens.admin, tokens.client, "no-such-flag"]) expect(after.text).not.toContain(word);
    expect(valueOf(after.families, "process_cpu_seconds_total")).toBeGreaterThan(0);
    // Unleash's path and the conventional one serve the same registry.
    expect((await scrape(`${vexil.url}/metrics`)).families.has("vexil_http_requests_total")).toBe(true);
  });

  it("shows SDK streams open, the snapshot revision served and the commit-to-serve lag", async () => {
    const stream = new AbortController();
    const res = await fetch(`${vexil.url}/api/client/streaming`, { headers: { authorization: tokens.client }, signal: stream.signal });
    expect(res.status).toBe(200);
    try {
      const opened = await waitFor(
        async () => valueOf((await scrape(metricsUrl())).families, "vexil_sdk_streaming_connections") === 1,
        30_000,
      );
      expect(opened).toBe(true);
      const before = await scrape(metricsUrl());
      const revision = valueOf(before.families, "vexil_snapshot_revision", { environment: "development" });
      const lagCount = valueOf(before.families, "vexil_snapshot_apply_lag_seconds");
      await createFlag(vexil, "default", `lag-${randomUUID().slice(0, 6)}`);
      const moved = await waitFor(async () => {
        const now = (await scrape(metricsUrl())).families;
        return (
          valueOf(now, "vexil_snapshot_revision", { environment: "development" }) > revision &&
          valueOf(now, "vexil_snapshot_apply_lag_seconds") > lagCount
        );
      }, 30_000);
      expect(moved).toBe(true);
      const now = (await scrape(metricsUrl())).families;
      expect(valueOf(now, "vexil_snapshot_published_revision", { environment: "development" })).toBe(
        valueOf(now, "vexil_snapshot_revision", { environment: "development" }),
      );
      expect(valueOf(now, "vexil_outbox_backlog")).toBeGreaterThanOrEqual(0);
    } finally {
      stream.abort();
    }
    expect(await waitFor(async () => valueOf((await scrape(metricsUrl())).families, "vexil_sdk_streaming_connections") === 0, 30_000)).toBe(
      true,
    );
  });
});

describe("METRICS_TOKEN", () => {
  it("closes the metrics endpoints to scrapers without the bearer token", async () => {
    const metricsToken = randomUUID();
    const vexil = await startVexilProcess({ env: { ...tokenEnv, METRICS_TOKEN: metricsToken } });
    try {
      for (const path of ["/internal-backstage/prometheus", "/metrics"]) {
        expect((await fetch(`${vexil.url}${path}`)).status).toBe(401);
        expect((await fetch(`${vexil.url}${path}`, { headers: { authorization: `Bearer ${randomUUID()}` } })).status).toBe(401);
        const { families } = await scrape(`${vexil.url}${path}`, { headers: { authorization: `Bearer ${metricsToken}` } });
        expect(families.has("vexil_outbox_backlog")).toBe(true);
      }
    } finally {
      await vexil.stop();
    }
  }, 300_000);
});

const clusterRuns = await clusterAvailable("cluster metrics");

describe.skipIf(!clusterRuns)("Prometheus metrics of `npm run start:cluster`", () => {
  const namespace = `test_${randomUUID().slice(0, 8)}`;
  let vexil: VexilProcess;

  beforeAll(async () => {
    vexil = await startVexilProcess({
      mode: "cluster",
      env: { ...tokenEnv, ...privateBackendEnv(namespace) },
    });
  });
  afterAll(async () => {
    await vexil?.stop();
    await removeNamespace(namespace);
  });

  it("serves each service's own metrics on its own port, and the gateway's per proxied prefix", async () => {
    await createFlag(vexil, "default", `cluster-${randomUUID().slice(0, 6)}`);
    expect((await fetch(`${vexil.url}/api/signal-endpoint/nowhere`, { method: "POST" })).status).toBe(401);
    const service = (offset: number) => `http://127.0.0.1:${vexil.port + offset}/internal-backstage/prometheus`;

    const gateway = (await scrape(`${vexil.url}/metrics`)).families;
    expect(valueOf(gateway, "vexil_http_requests_total", { route: "/api/admin/*", method: "POST", status: "201" })).toBe(1);

    const admin = (await scrape(service(1))).families;
    expect(valueOf(admin, "vexil_http_requests_total", { route: "/api/admin/projects/:projectId/features", status: "201" })).toBe(1);
    expect(admin.has("vexil_outbox_backlog")).toBe(true);
    expect(valueOf(admin, "vexil_snapshot_published_revision", { environment: "development" })).toBeGreaterThan(0);

    const frontendEval = (await scrape(service(2))).families;
    expect(frontendEval.has("vexil_sdk_streaming_connections")).toBe(true);
    expect(await waitFor(async () => valueOf((await scrape(service(2))).families, "vexil_snapshot_apply_lag_seconds") > 0, 30_000)).toBe(
      true,
    );

    const signalIngest = (await scrape(service(3))).families;
    expect(valueOf(signalIngest, "vexil_signals_received_total", { outcome: "AuthenticationRequired" })).toBe(1);

    const addonDelivery = (await scrape(service(4))).families;
    expect(valueOf(addonDelivery, "vexil_addon_delivery_queue_depth")).toBe(0);
    expect(addonDelivery.has("vexil_addon_delivery_attempts_total")).toBe(true);
  }, 60_000);
});
