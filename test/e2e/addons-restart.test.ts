import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { connect } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdminDeps, createAdminService, type AdminService } from "@vexil/admin";
import { createTokenSecret } from "@vexil/auth";
import { createHttpApp, listen, type RunningServer } from "@vexil/http";
import { createLogger } from "@vexil/logger";
import { closeEngines, openEngines, platformEnv, type Engines } from "@vexil/runtime";
import { freePort, natsUrl, reachable, waitFor } from "../src/servers.js";
import { startReceiver, type Receiver } from "./addons-receiver.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const available = await reachable(natsUrl);
if (!available) console.log(`skipped: the addon-delivery restart test needs NATS at ${natsUrl}`);

/**
 * Admin runs in this process and addon-delivery as its own process, both on the real NATS
 * (JetStream), as in cluster mode. The delivery process is killed (SIGKILL) while a request is in
 * flight, events are written while it is down, and it is started again.
 */
describe.skipIf(!available)("addon delivery across a killed and restarted delivery process", () => {
  const namespace = `test_addons_${randomUUID().slice(0, 8)}`;
  const adminToken = createTokenSecret({ projects: ["*"], environment: "*" });
  const logger = createLogger({ service: "e2e-addons-restart", level: "silent" });
  let dataDir: string;
  let engines: Engines;
  let admin: AdminService;
  let server: RunningServer;
  let receiver: Receiver;
  let delivery: ChildProcess | undefined;
  let deliveryPort: number;
  let output = "";

  const api = (pathname: string, init: { method?: string; body?: unknown } = {}) =>
    fetch(`${server.url}${pathname}`, {
      method: init.method,
      headers: { authorization: adminToken, ...(init.body ? { "content-type": "application/json" } : {}) },
      body: init.body ? JSON.stringify(init.body) : undefined,
    });
  const createFlag = async (name: string) =>
    expect((await api("/api/admin/projects/default/features", { method: "POST", body: { name } })).status).toBe(201);

  async function startDelivery(): Promise<void> {
    delivery = spawn(process.execPath, ["--import", "tsx", "--conditions=vexil-source", "services/addon-delivery/src/main.ts"], {
      cwd: root,
      env: {
        ...process.env,
        PORT: String(deliveryPort),
        DATA_DIR: dataDir,
        LOG_LEVEL: "warn",
        NATS_URL: natsUrl,
        NATS_STREAM: namespace,
        NATS_NAMESPACE: namespace,
        ADDONS_ALLOW_PRIVATE_URLS: "true",
        ADDONS_BACKOFF_BASE_MS: "20",
        ADDONS_BACKOFF_MAX_MS: "200",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    delivery.stdout!.on("data", (d) => (output += d));
    delivery.stderr!.on("data", (d) => (output += d));
    const ready = await waitFor(async () => (await fetch(`http://127.0.0.1:${deliveryPort}/ready`)).status === 200, 30_000, 100);
    if (!ready) throw new Error(`addon-delivery did not become ready:\n${output}`);
  }

  async function killDelivery(): Promise<void> {
    const exited = new Promise((resolve) => delivery!.once("exit", resolve));
    delivery!.kill("SIGKILL");
    await exited;
  }

  /** JetStream has handed every event to the delivery consumer and had each acked. */
  async function consumerCaughtUp(): Promise<boolean> {
    const nc = await connect({ servers: natsUrl });
    try {
      const info = await (await nc.jetstreamManager()).consumers.info(namespace, "addon-delivery");
      return info.num_pending === 0 && info.num_ack_pending === 0;
    } finally {
      await nc.close();
    }
  }

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "vexil-addons-restart-"));
    deliveryPort = await freePort();
    receiver = await startReceiver();
    const platform = platformEnv.parse({ DATA_DIR: dataDir, NATS_URL: natsUrl, NATS_STREAM: namespace, NATS_NAMESPACE: namespace });
    engines = await openEngines(platform, "admin", logger);
    admin = createAdminService(
      await createAdminDeps({
        engines,
        logger,
        settings: {
          INIT_ADMIN_API_TOKENS: [adminToken],
          INIT_CLIENT_API_TOKENS: [],
          INIT_FRONTEND_API_TOKENS: [],
          ADDONS_ALLOW_PRIVATE_URLS: true,
        },
      }),
    );
    await admin.start();
    server = await listen(createHttpApp({ logger, routers: [admin.router] }), 0, "127.0.0.1");
  }, 60_000);

  afterAll(async () => {
    if (delivery && delivery.exitCode === null && delivery.signalCode === null) await killDelivery();
    await server?.close();
    await admin?.stop();
    if (engines) await closeEngines(engines);
    await receiver?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    const nc = await connect({ servers: natsUrl });
    await (await nc.jetstreamManager()).streams.delete(namespace).catch(() => undefined);
    await nc.close();
  }, 30_000);

  it("delivers every event, each answered 2xx exactly once and in order", async () => {
    const created = await api("/api/admin/addons", {
      method: "POST",
      body: { provider: "webhook", enabled: true, parameters: { url: receiver.url("/restart") }, events: ["feature-created"] },
    });
    expect(created.status).toBe(200);
    const names = Array.from({ length: 20 }, (_, i) => `restart-${String(i).padStart(2, "0")}`);
    // The sixth request is held unanswered: the process dies with it in flight.
    receiver.respondWith((_req, count) => (count === 6 ? null : 200));

    await startDelivery();
    for (const name of names.slice(0, 10)) await createFlag(name);
    expect(await waitFor(async () => receiver.on("/restart").length === 6, 15_000, 25)).toBe(true);
    expect(await waitFor(consumerCaughtUp, 15_000, 50)).toBe(true);
    await killDelivery();

    // Written while no delivery process runs: JetStream keeps them for the durable consumer.
    for (const name of names.slice(10)) await createFlag(name);
    await startDelivery();

    const delivered = await waitFor(async () => receiver.answered("/restart").length >= 20, 30_000, 50);
    expect(delivered, output).toBe(true);
    await new Promise((r) => setTimeout(r, 300));

    const answered = receiver.answered("/restart");
    const answeredNames = answered.map((r) => JSON.parse(r.body).featureName);
    expect(answeredNames).toEqual(names);
    expect(new Set(answered.map((r) => r.headers["idempotency-key"])).size).toBe(20);
    // Only the request the dead process never got an answer to was sent again, with the same key.
    const all = receiver.on("/restart");
    expect(all).toHaveLength(21);
    expect(all[5].status).toBeNull();
    expect(all[6].headers["idempotency-key"]).toBe(all[5].headers["idempotency-key"]);

    const { integrationEvents } = await (await api(`/api/admin/addons/${(await created.json()).id}/events?limit=100`)).json();
    expect(integrationEvents.filter((e: { state: string }) => e.state === "success")).toHaveLength(20);
  }, 120_000);
});
