/**
 * `npm run test:faults`, replicas: the cluster with three frontend-eval processes behind the gateway
 * (signal-ingest and addon-delivery one each: on the embedded store each is owned by one process,
 * see the README's cluster section), against a NATS and a Redis of its own, under steady admin
 * writes, polling and streaming `unleash-client`s, polling `unleash-proxy-client`s, SDK requests
 * through the gateway as fast as they are answered, a webhook and a signal source. Faults one after
 * another: each frontend-eval replica killed in turn, NATS stopped for 60 s, Redis restarted empty,
 * admin killed. After each: no SDK request through the gateway failed; the replicas serve the same
 * revision within a bound measured (p99 reported); every event delivered exactly once; every
 * signal acted on once; no acknowledged write lost. While NATS, Redis or admin is down the SDK
 * paths answer 200 and the gateway and every frontend-eval stay ready. Times are reported, never
 * asserted tightly: the machine may be loaded.
 */
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTokenSecret } from "@vexil/auth";
import { privateServersMissing, startPrivateNats, startPrivateRedis, type PrivateServer } from "../src/private-servers.js";
import { waitFor } from "../src/servers.js";
import { startVexilProcess, type ServiceName, type VexilProcess } from "../src/vexil-process.js";
import {
  adminFetch,
  adminState,
  deliveriesOf,
  differences,
  environment,
  expectedDeliveries,
  health,
  latestEventId,
  readiness,
  signalsActedOn,
  startSdks,
  startSignalSource,
  startWebhook,
  startWriter,
  type Gateway,
  type Sdks,
  type SignalSource,
  type Writer,
} from "./load.js";
import { percentile, startProxyClients, startRevisionWatch, startSdkProbe } from "./replica-load.js";

const missing = privateServersMissing();
if (missing) console.log(`skipped: the replica suite needs its own servers; ${missing}`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const projects = ["default", "replicas"];
const frontendReplicas = 3;

interface Row {
  fault: string;
  sdkRequests: number;
  sdkFailures: number;
  revisionP50: number;
  revisionP99: number;
  revisionSamples: number;
  convergeMs: number;
  writesAcked: number;
  writesDuringFault: number;
  events: number;
  repeated: number;
  signals: number;
  notes: string;
}

describe.skipIf(missing)("replicas under faults", () => {
  let nats: PrivateServer;
  let redis: PrivateServer;
  let vexil: VexilProcess;
  let gateway: Gateway & { frontend: string };
  let writer: Writer;
  let sdks: Sdks;
  let proxies: Awaited<ReturnType<typeof startProxyClients>>;
  let probe: ReturnType<typeof startSdkProbe>;
  let revisions: ReturnType<typeof startRevisionWatch>;
  let webhook: Awaited<ReturnType<typeof startWebhook>>;
  let signals: SignalSource;
  let firstWebhookEvent = 0;
  let failuresSeen = 0;
  let requestsSeen = 0;
  const rows: Row[] = [];
  const suiteStarted = Date.now();

  const frontendUrls = () => Array.from({ length: frontendReplicas }, (_, i) => vexil.serviceUrl("frontend-eval", i + 1));
  const allUrls = () => [
    vexil.url,
    ...frontendUrls(),
    ...(["admin", "signal-ingest", "addon-delivery"] as ServiceName[]).map((s) => vexil.serviceUrl(s)),
  ];
  const allReady = (timeoutMs = 120_000) =>
    waitFor(async () => (await Promise.all(allUrls().map(readiness))).every((r) => r.status === 200), timeoutMs, 250);
  /** The gateway and every frontend-eval answer /ready 200 now. */
  const sdkSideReady = async () => (await Promise.all([vexil.url, ...frontendUrls()].map(readiness))).every((r) => r.status === 200);

  beforeAll(async () => {
    nats = await startPrivateNats();
    redis = await startPrivateRedis();
    const tokens = {
      admin: createTokenSecret({ projects: ["*"], environment: "*" }),
      client: createTokenSecret({ projects: ["*"], environment }),
      frontend: createTokenSecret({ projects: ["*"], environment }),
    };
    vexil = await startVexilProcess({
      mode: "cluster",
      replicas: { "frontend-eval": frontendReplicas },
      readyTimeoutMs: 240_000,
      env: {
        NATS_URL: nats.url,
        REDIS_URL: redis.url,
        LOG_LEVEL: "warn",
        INIT_ADMIN_API_TOKENS: tokens.admin,
        INIT_CLIENT_API_TOKENS: tokens.client,
        INIT_FRONTEND_API_TOKENS: tokens.frontend,
        ADDONS_ALLOW_PRIVATE_URLS: "true",
        ADDONS_BACKOFF_BASE_MS: "200",
        ADDONS_BACKOFF_MAX_MS: "2000",
        ADDONS_MAX_ATTEMPTS: "50",
      },
    });
    gateway = { url: vexil.url, ...tokens };
    expect(await allReady(), `every process ready at start:\n${vexil.output().slice(-3000)}`).toBe(true);
    const project = await adminFetch(gateway, "/api/admin/projects", { method: "POST", body: { id: "replicas", name: "Replicas" } });
    expect(project.status, await project.clone().text()).toBeLessThan(300);
    webhook = await startWebhook(gateway);
    firstWebhookEvent = await latestEventId(gateway);
    signals = await startSignalSource(gateway, "replicas");
    writer = startWriter(gateway, projects);
    sdks = await startSdks(gateway);
    proxies = await startProxyClients(gateway.url, tokens.frontend);
    probe = startSdkProbe(gateway.url, tokens);
    revisions = startRevisionWatch(frontendUrls(), tokens.client);
    await waitFor(async () => writer.writes >= 20, 60_000, 250);
    revisions.take();
  }, 360_000);

  afterAll(async () => {
    await probe?.stop();
    await revisions?.stop();
    proxies?.stop();
    await signals?.stop();
    await writer?.stop();
    sdks?.stop();
    await webhook?.receiver.close();
    await vexil?.stop();
    await nats?.dispose();
    await redis?.dispose();
    if (vexil) {
      const log = path.join(tmpdir(), `vexil-replicas-${suiteStarted}.log`);
      await writeFile(log, vexil.output());
      console.log(`cluster output: ${log}`);
    }
    if (rows.length > 0) console.log(report());
  }, 120_000);

  /** Writer paused, then both server SDKs on exactly the admin's state: the time from `healedAt`. */
  async function converge(healedAt: number): Promise<number> {
    await writer.pause();
    let last: string[] = [];
    const converged = await waitFor(
      async () => {
        const admin = await adminState(gateway, projects);
        const { polling, streaming } = sdks.views();
        last = [...differences(admin, polling).map((d) => `polling ${d}`), ...differences(admin, streaming).map((d) => `streaming ${d}`)];
        return last.length === 0;
      },
      120_000,
      100,
    );
    const at = Date.now();
    expect(converged, `SDKs did not converge: ${last.slice(0, 5).join("; ")}`).toBe(true);
    return at - healedAt;
  }

  async function check(fault: string, { faultStart, healedAt, notes = "" }: { faultStart: number; healedAt: number; notes?: string }) {
    try {
      const writesDuringFault = writer.ackedBetween(faultStart, healedAt);
      const convergeMs = await converge(healedAt);
      const admin = await adminState(gateway, projects);
      const lost = [...writer.acked].filter(([name, flag]) => !admin.has(name) || (flag.enabled && !admin.get(name)));
      expect(lost, "acknowledged writes lost").toEqual([]);
      const {
        delivered,
        missing: undelivered,
        repeated,
      } = await deliveriesOf(webhook, await expectedDeliveries(gateway, firstWebhookEvent));
      expect(undelivered, "events not delivered").toEqual([]);
      expect(repeated, "events delivered more than once").toBe(0);
      const acted = await signalsActedOn(signals);
      expect(
        [...acted].filter(([, n]) => n !== 1),
        "signals not acted on exactly once",
      ).toEqual([]);
      const failures = probe.failures.slice(failuresSeen);
      failuresSeen = probe.failures.length;
      const sent = probe.sent - requestsSeen;
      requestsSeen = probe.sent;
      expect(failures, "SDK requests through the gateway that failed").toEqual([]);
      expect(await allReady(), "every process ready again").toBe(true);
      const samples = revisions.take();
      rows.push({
        fault,
        sdkRequests: sent,
        sdkFailures: failures.length,
        revisionP50: percentile(samples, 50),
        revisionP99: percentile(samples, 99),
        revisionSamples: samples.length,
        convergeMs,
        writesAcked: writer.acked.size,
        writesDuringFault,
        events: delivered.size,
        repeated,
        signals: acted.size,
        notes,
      });
    } finally {
      writer.resume();
    }
  }

  for (let n = 1; n <= frontendReplicas; n++) {
    it(`keeps every SDK request answered while frontend-eval replica ${n} is killed and comes back`, async () => {
      const faultStart = Date.now();
      process.kill(vexil.servicePid("frontend-eval", n), "SIGKILL");
      const gatewayStayedReady = await waitFor(async () => (await readiness(serviceUrl(n))).status !== 200, 20_000, 50).then(
        async () => (await readiness(vexil.url)).status === 200,
      );
      expect(gatewayStayedReady, "the gateway stays ready with a replica down").toBe(true);
      expect(await waitFor(async () => (await readiness(serviceUrl(n))).status === 200, 120_000, 100), "the replica is back").toBe(true);
      await check(`SIGKILL frontend-eval ${n} of ${frontendReplicas}`, {
        faultStart,
        healedAt: Date.now(),
        notes: `back after ${Date.now() - faultStart} ms; gateway ready throughout the check`,
      });
    }, 360_000);
  }
  const serviceUrl = (n: number) => vexil.serviceUrl("frontend-eval", n);

  it("serves SDKs, stays ready and takes writes while NATS is stopped for 60 s", async () => {
    const faultStart = Date.now();
    await nats.stop();
    const named = await waitFor(
      async () => (await Promise.all(frontendUrls().map(health))).every((h) => h.includes("snapshots:nats")),
      20_000,
      250,
    );
    let readyThroughout = true;
    while (Date.now() < faultStart + 60_000) {
      readyThroughout &&= await sdkSideReady();
      await sleep(1000);
    }
    await nats.start();
    const healedAt = Date.now();
    expect(named, "every frontend-eval says on /health that NATS is away").toBe(true);
    expect(readyThroughout, "the gateway and every frontend-eval ready throughout").toBe(true);
    expect(writer.ackedBetween(faultStart, healedAt), "admin acknowledged writes while NATS was down").toBeGreaterThan(0);
    await check("NATS stopped 60 s", { faultStart, healedAt, notes: "gateway and every frontend-eval ready throughout" });
  }, 420_000);

  it("serves SDKs and stays ready while Redis restarts empty", async () => {
    const faultStart = Date.now();
    await redis.stop();
    const named = await waitFor(
      async () => (await Promise.all(frontendUrls().map(health))).every((h) => h.includes("Redis unreachable")),
      20_000,
      250,
    );
    const readyWhileDown = await sdkSideReady();
    await sleep(5000);
    await redis.start();
    const healedAt = Date.now();
    expect(named, "every frontend-eval says on /health that Redis is away").toBe(true);
    expect(readyWhileDown, "the gateway and every frontend-eval ready while Redis is down").toBe(true);
    await check("Redis restarted empty", { faultStart, healedAt, notes: "gateway and every frontend-eval ready while it was down" });
  }, 360_000);

  it("serves SDKs and stays ready while admin is killed", async () => {
    const faultStart = Date.now();
    process.kill(vexil.servicePid("admin"), "SIGKILL");
    const down = await waitFor(async () => (await readiness(vexil.serviceUrl("admin"))).status !== 200, 20_000, 50);
    const readyWhileDown = await sdkSideReady();
    expect(down && readyWhileDown, "the gateway and every frontend-eval ready while admin is down").toBe(true);
    expect(await waitFor(async () => (await readiness(vexil.serviceUrl("admin"))).status === 200, 120_000, 100), "admin back").toBe(true);
    await check("SIGKILL admin", { faultStart, healedAt: Date.now(), notes: `back after ${Date.now() - faultStart} ms` });
  }, 360_000);

  it("lost no browser SDK poll either", () => {
    expect(proxies.errors, "unleash-proxy-client errors").toEqual([]);
  });

  function report(): string {
    return [
      "| fault | SDK requests through the gateway / failed | replicas on the same revision: p50 / p99 (samples) | time to converge | flags acknowledged | writes during the fault | events delivered / repeated | signals acted on once | notes |",
      "|---|---|---|---|---|---|---|---|---|",
      ...rows.map(
        (r) =>
          `| ${r.fault} | ${r.sdkRequests} / ${r.sdkFailures} | ${r.revisionP50} ms / ${r.revisionP99} ms (${r.revisionSamples}) | ${(r.convergeMs / 1000).toFixed(1)} s | ${r.writesAcked} | ${r.writesDuringFault} | ${r.events} / ${r.repeated} | ${r.signals} | ${r.notes} |`,
      ),
      "",
      `Wall time: ${((Date.now() - suiteStarted) / 1000).toFixed(0)} s.`,
    ].join("\n");
  }
});
