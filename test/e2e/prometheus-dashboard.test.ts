import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import parsePrometheusTextFormat, { type MetricFamily } from "parse-prometheus-text-format";
import { Unleash, UnleashEvents } from "unleash-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReceiver, type Receiver } from "./addons-receiver.js";
import { clusterAvailable, privateBackendEnv, removeNamespace } from "../src/harness.js";
import { freePort, waitFor } from "../src/servers.js";
import { tokenSecret } from "../src/tokens.js";
import { repoRoot, startVexilProcess, type VexilProcess } from "../src/vexil-process.js";

/**
 * The metrics an operator pages on, as Prometheus itself reads them: a real `prometheus` scrapes a
 * running Vexil (the one process in single mode; the gateway and each service on its own port in
 * cluster mode) while a real `unleash-client` registers, polls and posts its metrics, and every
 * query of `deploy/grafana-dashboard.json` is evaluated through Prometheus's HTTP API and must
 * return series. Each process's scrape also passes `promtool check metrics`, and the SDK metrics
 * are read from the process that counts them (frontend-eval's own port in cluster mode).
 */
const promtoolMissing = spawnSync("promtool", ["--version"]).error !== undefined;
const prometheusMissing = spawnSync("prometheus", ["--version"]).error !== undefined;
if (promtoolMissing || prometheusMissing)
  console.log("skipped: the dashboard check needs Debian's prometheus package (prometheus, promtool)");

const tokens = {
  admin: tokenSecret("*", "*"),
  client: tokenSecret("*", "development"),
};
const tokenEnv = { INIT_ADMIN_API_TOKENS: tokens.admin, INIT_CLIENT_API_TOKENS: tokens.client, ADDONS_ALLOW_PRIVATE_URLS: "true" };

interface DashboardQuery {
  panel: string;
  expr: string;
}

/** Every query of the dashboard, with `$job` (the job picker) left open. */
function dashboardQueries(): DashboardQuery[] {
  const dashboard = JSON.parse(readFileSync(path.join(repoRoot, "deploy/grafana-dashboard.json"), "utf8")) as {
    panels: Array<{ title: string; targets?: Array<{ expr: string }> }>;
  };
  return dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr.replaceAll("$job", ".*") })),
  );
}

/**
 * Queries that stay empty while nothing fails, so a healthy run cannot fill them: they are checked
 * to evaluate, and the same selector without the failure filter must find the series.
 */
const emptyWhileHealthy = new Map([['status=~"5.."', "no request failed with a 5xx"]]);

async function scrapeText(url: string): Promise<string> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return res.text();
}

function families(text: string): Map<string, MetricFamily> {
  return new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));
}

/** The sum of the samples of `name` whose labels include `labels`. */
function sumOf(text: string, name: string, labels: Record<string, string>): number {
  return (families(text).get(name)?.metrics ?? [])
    .filter((m) => Object.entries(labels).every(([key, value]) => m.labels?.[key] === value))
    .reduce((sum, m) => sum + Number(m.value), 0);
}

/**
 * What `promtool check metrics` reports that is not Vexil's to change: Unleash's counter
 * `client_sdk_versions` (no `_total`) and label `appName` (camel case), kept as Unleash names them
 * so its dashboards and alerts work, and prom-client's default gauges named `_total`.
 */
const acceptedLint = [
  /^client_sdk_versions counter metrics should have "_total" suffix$/,
  /^feature_toggle_usage_total label names should be written in 'snake_case' not 'camelCase'$/,
  /^nodejs_active_(handles|requests|resources)_total non-counter metrics should not have "_total" suffix$/,
];

/** `promtool check metrics` on a scrape: what it reports, less `acceptedLint`. */
function promtoolProblems(text: string): string[] {
  const lint = spawnSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" });
  return `${lint.stdout}${lint.stderr}`
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !acceptedLint.some((accepted) => accepted.test(line)));
}

interface RunningPrometheus {
  query(expr: string): Promise<{ status: string; error?: string; data?: { result: unknown[] } }>;
  targetsUp(): Promise<boolean>;
  stop(): Promise<void>;
}

/** A real Prometheus on a free port, scraping `targets` (host:port) every second. */
async function startPrometheus(targets: string[]): Promise<RunningPrometheus> {
  const dir = await mkdtemp(path.join(tmpdir(), "vexil-prometheus-"));
  const config = path.join(dir, "prometheus.yml");
  await writeFile(
    config,
    [
      "global:",
      "  scrape_interval: 1s",
      "  evaluation_interval: 1s",
      "scrape_configs:",
      "  - job_name: vexil",
      "    metrics_path: /internal-backstage/prometheus",
      "    static_configs:",
      `      - targets: [${targets.map((t) => JSON.stringify(t)).join(", ")}]`,
      "",
    ].join("\n"),
  );
  const port = await freePort();
  const child: ChildProcess = spawn(
    "prometheus",
    [`--config.file=${config}`, `--storage.tsdb.path=${path.join(dir, "data")}`, `--web.listen-address=127.0.0.1:${port}`],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let log = "";
  child.stderr!.on("data", (chunk: Buffer) => (log += chunk.toString()));
  const base = `http://127.0.0.1:${port}`;
  const up = await waitFor(async () => (await fetch(`${base}/-/ready`).catch(() => undefined))?.status === 200, 60_000, 250);
  if (!up) throw new Error(`prometheus did not start:\n${log}`);
  return {
    async query(expr) {
      const res = await fetch(`${base}/api/v1/query?${new URLSearchParams({ query: expr })}`);
      return res.json();
    },
    async targetsUp() {
      const answer = (await (await fetch(`${base}/api/v1/query?query=up`)).json()) as {
        data: { result: Array<{ value: [number, string] }> };
      };
      return answer.data.result.length === targets.length && answer.data.result.every((r) => r.value[1] === "1");
    },
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function call(vexil: VexilProcess, pathname: string, init: { method?: string; body?: unknown; token?: string } = {}) {
  return fetch(`${vexil.url}${pathname}`, {
    method: init.method ?? "GET",
    headers: { authorization: init.token ?? tokens.admin, ...(init.body ? { "content-type": "application/json" } : {}) },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
}

/**
 * What fills every panel: a flag switched on (a snapshot change, an addon delivery to a real
 * receiver), a signal refused, and a real `unleash-client` that registers, evaluates the flag and
 * posts its counts. Returns the flag and the SDK, to be stopped.
 */
async function driveTraffic(vexil: VexilProcess, receiver: Receiver): Promise<{ flag: string; sdk: Unleash; appName: string }> {
  const flag = `paged-${randomUUID().slice(0, 6)}`;
  const addon = await call(vexil, "/api/admin/addons", {
    method: "POST",
    body: { provider: "webhook", enabled: true, parameters: { url: receiver.url("/hook") }, events: ["feature-created"] },
  });
  expect(addon.status).toBe(200);
  expect((await call(vexil, "/api/admin/projects/default/features", { method: "POST", body: { name: flag } })).status).toBe(201);
  const on = await call(vexil, `/api/admin/projects/default/features/${flag}/environments/development/on`, { method: "POST" });
  expect(on.status).toBe(200);
  expect((await fetch(`${vexil.url}/api/signal-endpoint/nowhere`, { method: "POST" })).status).toBe(401);

  const appName = `dashboard-${randomUUID().slice(0, 6)}`;
  const sdk = new Unleash({
    appName,
    url: `${vexil.url}/api`,
    customHeaders: { Authorization: tokens.client },
    refreshInterval: 500,
    metricsInterval: 1000,
    metricsJitter: 0,
    disableAutoStart: false,
    backupPath: vexil.dataDir,
    skipInstanceCountWarning: true,
  });
  await new Promise<void>((resolve, reject) => {
    sdk.once(UnleashEvents.Synchronized, () => resolve());
    sdk.once(UnleashEvents.Error, reject);
  });
  const seen = await waitFor(async () => sdk.isEnabled(flag), 30_000);
  expect(seen).toBe(true);
  for (let i = 0; i < 5; i++) sdk.isEnabled(flag);
  for (let i = 0; i < 3; i++) sdk.isEnabled(`${flag}-unknown`);
  return { flag, sdk, appName };
}

/** Waits until every dashboard query returns series (or, for those empty while healthy, evaluates). */
async function expectEveryQueryAnswers(prometheus: RunningPrometheus): Promise<void> {
  const pending = new Map(dashboardQueries().map((q) => [q.expr, q]));
  const failures = new Map<string, string>();
  const answered = await waitFor(
    async () => {
      for (const [expr, { panel }] of pending) {
        const answer = await prometheus.query(expr);
        if (answer.status !== "success") {
          failures.set(expr, `${panel}: ${answer.error}`);
          continue;
        }
        const failureFilter = [...emptyWhileHealthy.keys()].find((filter) => expr.includes(filter));
        if (failureFilter) {
          const unfiltered = await prometheus.query(expr.replace(failureFilter, ""));
          if ((unfiltered.data?.result.length ?? 0) === 0) {
            failures.set(expr, `${panel}: no series even without ${failureFilter}`);
            continue;
          }
        } else if ((answer.data?.result.length ?? 0) === 0) {
          failures.set(expr, `${panel}: no series`);
          continue;
        }
        pending.delete(expr);
        failures.delete(expr);
      }
      return pending.size === 0;
    },
    90_000,
    1000,
  );
  expect(answered, [...failures.values()].join("\n")).toBe(true);
}

const clusterRuns = await clusterAvailable("the cluster dashboard check");

describe.skipIf(promtoolMissing || prometheusMissing)("the Grafana dashboard over a real Prometheus scrape", () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  describe("`npm start` (one process)", () => {
    let vexil: VexilProcess;
    let prometheus: RunningPrometheus | undefined;
    let sdk: Unleash | undefined;
    beforeAll(async () => {
      vexil = await startVexilProcess({ env: tokenEnv });
    });
    afterAll(async () => {
      sdk?.destroy();
      await prometheus?.stop();
      await vexil?.stop();
    });

    it("serves the connection gauges and the SDK counters, lints clean, and fills every panel", async () => {
      prometheus = await startPrometheus([`127.0.0.1:${vexil.port}`]);
      const traffic = await driveTraffic(vexil, receiver);
      sdk = traffic.sdk;
      const metricsUrl = `${vexil.url}/internal-backstage/prometheus`;
      const counted = await waitFor(
        async () =>
          sumOf(await scrapeText(metricsUrl), "feature_toggle_usage_total", {
            toggle: traffic.flag,
            active: "true",
            environment: "development",
            appName: traffic.appName,
          }) >= 6,
        30_000,
        500,
      );
      expect(counted).toBe(true);
      const text = await scrapeText(metricsUrl);
      expect(sumOf(text, "feature_toggle_usage_total", { toggle: `${traffic.flag}-unknown`, active: "false" })).toBe(3);
      expect(sumOf(text, "client_sdk_versions", { sdk_name: "unleash-node-sdk", platform_name: "node" })).toBeGreaterThanOrEqual(1);
      // No NATS or Redis in this start: the in-process bus and cache always answer.
      expect(sumOf(text, "vexil_bus_connected", {})).toBe(1);
      expect(sumOf(text, "vexil_cache_connected", {})).toBe(1);
      expect(families(text).has("nodejs_eventloop_lag_p99_seconds")).toBe(true);
      expect(promtoolProblems(text)).toEqual([]);

      expect(await waitFor(() => prometheus!.targetsUp(), 30_000, 500)).toBe(true);
      await expectEveryQueryAnswers(prometheus);
    }, 240_000);
  });

  describe.skipIf(!clusterRuns)("`npm run start:cluster` (a process per service)", () => {
    const namespace = `test_${randomUUID().slice(0, 8)}`;
    let vexil: VexilProcess;
    let prometheus: RunningPrometheus | undefined;
    let sdk: Unleash | undefined;
    beforeAll(async () => {
      vexil = await startVexilProcess({
        mode: "cluster",
        env: { ...tokenEnv, ...privateBackendEnv(namespace) },
      });
    });
    afterAll(async () => {
      sdk?.destroy();
      await prometheus?.stop();
      await vexil?.stop();
      await removeNamespace(namespace);
    });

    it("counts SDK usage in frontend-eval, shows each service's NATS and Redis connection, lints clean, and fills every panel", async () => {
      const services = ["admin", "frontend-eval", "signal-ingest", "addon-delivery"] as const;
      const processes = [vexil.url, ...services.map((service) => vexil.serviceUrl(service))];
      prometheus = await startPrometheus(processes.map((url) => new URL(url).host));
      const traffic = await driveTraffic(vexil, receiver);
      sdk = traffic.sdk;

      // frontend-eval answers the SDKs and counts what they report, on its own port; the gateway only proxies.
      const frontendEval = `${vexil.serviceUrl("frontend-eval")}/internal-backstage/prometheus`;
      const usage = { toggle: traffic.flag, active: "true", environment: "development", appName: traffic.appName };
      expect(await waitFor(async () => sumOf(await scrapeText(frontendEval), "feature_toggle_usage_total", usage) >= 6, 30_000, 500)).toBe(
        true,
      );
      const frontendEvalText = await scrapeText(frontendEval);
      expect(sumOf(frontendEvalText, "client_sdk_versions", { sdk_name: "unleash-node-sdk" })).toBeGreaterThanOrEqual(1);
      expect(families(await scrapeText(`${vexil.url}/internal-backstage/prometheus`)).has("feature_toggle_usage_total")).toBe(false);

      for (const service of services) {
        const text = await scrapeText(`${vexil.serviceUrl(service)}/internal-backstage/prometheus`);
        expect(sumOf(text, "vexil_bus_connected", {}), service).toBe(1);
        expect(sumOf(text, "vexil_cache_connected", {}), service).toBe(1);
        expect(promtoolProblems(text), service).toEqual([]);
      }
      expect(promtoolProblems(await scrapeText(`${vexil.url}/internal-backstage/prometheus`))).toEqual([]);

      expect(await waitFor(() => prometheus!.targetsUp(), 30_000, 500)).toBe(true);
      await expectEveryQueryAnswers(prometheus);
      // The connection panel shows each service's own gauges, one series per process.
      const connected = await prometheus.query('min by (instance) (vexil_bus_connected{job=~".*"})');
      expect(connected.data?.result).toHaveLength(services.length);
    }, 400_000);
  });
});
