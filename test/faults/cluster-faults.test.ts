/**
 * `npm run test:faults`: the cluster (one process per service, as `npm run start:cluster` runs it)
 * against a NATS and a Redis of its own, under a steady write, SDK, webhook and signal load, with
 * one fault injected after another. After each: no acknowledged write lost, both SDKs back on the
 * admin's state (time measured), every webhook event delivered (repeats only with the same
 * idempotency key), every signal acted on exactly once, no process left crash-looping, and `/ready`
 * saying what is down while it is. Times are measured and reported, never asserted tightly: the
 * machine may be loaded. The table is printed at the end (see README.md beside this file).
 */
import { watch } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTokenSecret } from "@vexil/auth";
import { privateServersMissing, startPrivateNats, startPrivateRedis, type PrivateServer } from "../src/private-servers.js";
import { waitFor } from "../src/servers.js";
import { startVexilProcess, type ClusterService, type ServiceName, type VexilProcess } from "../src/vexil-process.js";
import {
  adminFetch,
  adminState,
  clusterServices,
  deliveriesOf,
  differences,
  environment,
  everyServiceReady,
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

const missing = privateServersMissing();
if (missing) console.log(`skipped: the fault suite needs its own servers; ${missing}`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const projects = ["default", "faults"];

interface Row {
  fault: string;
  convergeMs: number;
  writesAcked: number;
  writesFound: number;
  writesDuringFault: number;
  eventsDelivered: number;
  eventsRepeated: number;
  signalsAccepted: number;
  signalsActedOnce: number;
  notes: string;
}

describe.skipIf(missing)("the cluster under faults", () => {
  let nats: PrivateServer;
  let redis: PrivateServer;
  let vexil: VexilProcess;
  let gateway: Gateway;
  let writer: Writer;
  let sdks: Sdks;
  let webhook: Awaited<ReturnType<typeof startWebhook>>;
  let signals: SignalSource;
  let firstWebhookEvent = 0;
  const rows: Row[] = [];
  const suiteStarted = Date.now();

  beforeAll(async () => {
    nats = await startPrivateNats();
    redis = await startPrivateRedis();
    const tokens = {
      admin: createTokenSecret({ projects: ["*"], environment: "*" }),
      client: createTokenSecret({ projects: ["*"], environment }),
    };
    vexil = await startVexilProcess({
      mode: "cluster",
      readyTimeoutMs: 180_000,
      env: {
        NATS_URL: nats.url,
        REDIS_URL: redis.url,
        LOG_LEVEL: "warn",
        INIT_ADMIN_API_TOKENS: tokens.admin,
        INIT_CLIENT_API_TOKENS: tokens.client,
        ADDONS_ALLOW_PRIVATE_URLS: "true",
        ADDONS_BACKOFF_BASE_MS: "200",
        ADDONS_BACKOFF_MAX_MS: "2000",
        // The most the service accepts: a value out of range stops it at start (a config error).
        ADDONS_MAX_ATTEMPTS: "50",
      },
    });
    gateway = { url: vexil.url, ...tokens };
    // The gateway's /ready covers only the services it proxies to: wait for addon-delivery too.
    expect(await allReady(), `every service ready at start:\n${vexil.output().slice(-3000)}`).toBe(true);
    const project = await adminFetch(gateway, "/api/admin/projects", { method: "POST", body: { id: "faults", name: "Faults" } });
    expect(project.status, await project.clone().text()).toBeLessThan(300);
    webhook = await startWebhook(gateway);
    firstWebhookEvent = await latestEventId(gateway);
    signals = await startSignalSource(gateway, "faults");
    writer = startWriter(gateway, projects);
    sdks = await startSdks(gateway);
    await waitFor(async () => writer.writes >= 20, 60_000, 250);
  }, 300_000);

  afterAll(async () => {
    await signals?.stop();
    await writer?.stop();
    sdks?.stop();
    await webhook?.receiver.close();
    await vexil?.stop();
    await nats?.dispose();
    await redis?.dispose();
    if (vexil) {
      // The services' own logs, for whoever reads a failure.
      const log = path.join(tmpdir(), `vexil-faults-${suiteStarted}.log`);
      await writeFile(log, vexil.output());
      console.log(`cluster output: ${log}`);
    }
    if (rows.length > 0) console.log(report());
  }, 120_000);

  const serviceUrl = (service: ServiceName) => vexil.serviceUrl(service);
  const allReady = (timeoutMs?: number) => everyServiceReady(vexil, timeoutMs);

  /**
   * After a fault is healed: pause the writer, then wait until both SDKs see exactly what the admin
   * holds. Returns the time from `healedAt` to that moment.
   */
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
    const convergedAt = Date.now();
    expect(converged, `SDKs did not converge: ${last.slice(0, 5).join("; ")}`).toBe(true);
    return convergedAt - healedAt;
  }

  /** The checks after each fault, and its row in the table; the writer goes on whatever they find. */
  async function check(fault: string, options: CheckOptions): Promise<void> {
    try {
      await checkNow(fault, options);
    } finally {
      writer.resume();
    }
  }

  async function checkNow(fault: string, { healedAt, faultStart, expectedExits, notes = "" }: CheckOptions): Promise<void> {
    const writesDuringFault = writer.ackedBetween(faultStart, healedAt);
    const convergeMs = await converge(healedAt);
    const admin = await adminState(gateway, projects);
    const lost = [...writer.acked].filter(([name, flag]) => !admin.has(name) || (flag.enabled && !admin.get(name)));
    expect(lost, "acknowledged writes lost").toEqual([]);

    const { delivered, missing, repeated } = await deliveriesOf(webhook, await expectedDeliveries(gateway, firstWebhookEvent));
    expect(missing, "events not delivered").toEqual([]);

    const acted = await signalsActedOn(signals);
    expect(
      [...acted].filter(([, n]) => n !== 1),
      "signals not acted on exactly once",
    ).toEqual([]);

    const exits = vexil.serviceExits();
    expect(exits, "processes that exited on their own").toEqual(expectedExits);
    expect(await allReady(), "every service ready again").toBe(true);

    rows.push({
      fault,
      convergeMs,
      writesAcked: writer.acked.size,
      writesFound: writer.acked.size - lost.length,
      writesDuringFault,
      eventsDelivered: delivered.size,
      eventsRepeated: repeated,
      signalsAccepted: acted.size,
      signalsActedOnce: [...acted.values()].filter((n) => n === 1).length,
      notes,
    });
  }

  interface CheckOptions {
    healedAt: number;
    faultStart: number;
    expectedExits: Record<string, number>;
    notes?: string;
  }
  const exitsSoFar: Record<string, number> = {};
  const killed = (service: ClusterService) => ({ ...exitsSoFar, [service]: (exitsSoFar[service] = (exitsSoFar[service] ?? 0) + 1) });

  async function killService(service: ClusterService): Promise<number> {
    process.kill(vexil.servicePid(service), "SIGKILL");
    return Date.now();
  }

  for (const service of clusterServices) {
    it(`survives SIGKILL of ${service}`, async () => {
      const deliveredBefore = webhook.receiver.answered("/hook").length;
      const faultStart = await killService(service);
      // The gateway proxies to every service but addon-delivery; it stays ready while another surface has a replica.
      const proxied = service !== "addon-delivery";
      const gatewayReady =
        proxied &&
        (await waitFor(async () => (await readiness(serviceUrl(service))).status !== 200, 10_000, 50)) &&
        (await readiness(vexil.url)).status === 200;
      const back = await waitFor(async () => (await readiness(serviceUrl(service))).status === 200, 120_000, 100);
      const backMs = Date.now() - faultStart;
      expect(back, `${service} back`).toBe(true);
      let notes = `back after ${backMs} ms`;
      if (proxied) notes += `; gateway ready while it was down: ${gatewayReady}`;
      else {
        // Delivery resumes within seconds of the kill: the writer's events keep coming.
        const resumed = await waitFor(async () => webhook.receiver.answered("/hook").length > deliveredBefore, 60_000, 50);
        expect(resumed, "deliveries resumed").toBe(true);
        notes += `; first delivery ${Date.now() - faultStart} ms after the kill`;
      }
      await check(`SIGKILL ${service}`, { faultStart, healedAt: Date.now(), expectedExits: killed(service), notes });
    }, 360_000);
  }

  it("survives SIGKILL of the gateway", async () => {
    const faultStart = await killService("gateway");
    expect(await waitFor(async () => (await readiness(vexil.url)).status === 200, 120_000, 100)).toBe(true);
    await check("SIGKILL gateway", { faultStart, healedAt: Date.now(), expectedExits: killed("gateway") });
  }, 360_000);

  for (const seconds of [5, 60]) {
    it(`lives through NATS stopped for ${seconds} s, taking writes meanwhile`, async () => {
      const faultStart = Date.now();
      await nats.stop();
      // Every service says on /health that NATS is away, and those that serve traffic stay ready.
      const notReady = await waitFor(
        async () => {
          const all = await Promise.all(clusterServices.map((s) => health(serviceUrl(s))));
          return all.every((r) => r.includes("NATS unreachable"));
        },
        Math.min(seconds * 1000, 20_000),
        250,
      );
      const stillReady = await Promise.all([vexil.url, serviceUrl("frontend-eval"), serviceUrl("admin")].map(readiness));
      expect(
        stillReady.map((r) => r.status),
        "the gateway, frontend-eval and admin stay ready while NATS is away",
      ).toEqual([200, 200, 200]);
      await sleep(Math.max(0, faultStart + seconds * 1000 - Date.now()));
      await nats.start();
      const healedAt = Date.now();
      const writesDuring = writer.ackedBetween(faultStart, healedAt);
      expect(writesDuring, "admin acknowledged writes while NATS was down").toBeGreaterThan(0);
      if (seconds >= 20) expect(notReady, "every service said NATS is unreachable on /health").toBe(true);
      await check(`NATS stopped ${seconds} s`, {
        faultStart,
        healedAt,
        expectedExits: { ...exitsSoFar },
        notes: `all /health named NATS while down: ${notReady}; gateway, frontend-eval, admin ready`,
      });
    }, 420_000);
  }

  it("lives through Redis restarting empty, and a frontend-eval restart right after", async () => {
    const faultStart = Date.now();
    await redis.stop();
    const notReady = await waitFor(async () => (await health(serviceUrl("frontend-eval"))).includes("Redis unreachable"), 20_000, 250);
    expect((await readiness(serviceUrl("frontend-eval"))).status, "frontend-eval stays ready while Redis is away").toBe(200);
    await sleep(3000);
    await redis.start();
    // The one that lost its cache the hard way: it must rebuild from admin, not serve a partial set.
    await killService("frontend-eval");
    expect(await waitFor(async () => (await readiness(serviceUrl("frontend-eval"))).status === 200, 120_000, 100)).toBe(true);
    const healedAt = Date.now();
    const client = await fetch(`${gateway.url}/api/client/features`, { headers: { authorization: gateway.client } });
    expect(client.status, "the client API after the rebuild").toBe(200);
    await check("Redis restarted empty + frontend-eval killed", {
      faultStart,
      healedAt,
      expectedExits: killed("frontend-eval"),
      notes: `frontend-eval /health named Redis while down: ${notReady}; ready throughout`,
    });
  }, 360_000);

  it("keeps every acknowledged write when admin is killed while it compacts its store", async () => {
    const dir = path.join(vexil.dataDir, "admin");
    let caught = false;
    const watcher = watch(dir, (_event, file) => {
      if (caught || file !== "snapshot.ejson.tmp") return;
      try {
        process.kill(vexil.servicePid("admin"), "SIGKILL");
        caught = true;
      } catch {
        // Not running yet or already gone: wait for the next compaction.
      }
    });
    // Each start compacts the journal left by the run before it: restart admin and kill it then.
    const faultStart = await killService("admin");
    killed("admin");
    await waitFor(async () => caught, 60_000, 20);
    watcher.close();
    if (caught) killed("admin");
    expect(await waitFor(async () => (await readiness(serviceUrl("admin"))).status === 200, 120_000, 100)).toBe(true);
    await check("SIGKILL admin during compaction", {
      faultStart,
      healedAt: Date.now(),
      expectedExits: { ...exitsSoFar },
      notes: caught ? "killed while snapshot.ejson.tmp was being written" : "compaction not caught; killed at start only",
    });
  }, 360_000);

  function report(): string {
    const lines = [
      "| fault | time to converge | flags acknowledged / found | writes acknowledged during the fault | events delivered / repeated (same key) | signals accepted / acted on once | notes |",
      "|---|---|---|---|---|---|---|",
      ...rows.map(
        (r) =>
          `| ${r.fault} | ${(r.convergeMs / 1000).toFixed(1)} s | ${r.writesAcked} / ${r.writesFound} | ${r.writesDuringFault} | ${r.eventsDelivered} / ${r.eventsRepeated} | ${r.signalsAccepted} / ${r.signalsActedOnce} | ${r.notes} |`,
      ),
      "",
      `Wall time: ${((Date.now() - suiteStarted) / 1000).toFixed(0)} s; writes retried after a failed try: ${writer?.failures}.`,
    ];
    return lines.join("\n");
  }
});
