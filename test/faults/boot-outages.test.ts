/**
 * Vexil started while its NATS and its Redis are both down, as the cluster and as the single
 * process configured for them: every process stays up, live but not ready while Redis (which holds
 * what they start from) is away, saying so on `/ready`. NATS is not waited for: once Redis is back,
 * admin and frontend-eval serve (admin's writes wait in its outbox, frontend-eval reads the snapshot
 * admin wrote to Redis and follows it there) while NATS is still down, and `/health` says they are
 * degraded. Once NATS is back every process is ready, without a single process exiting. Then a
 * flag written through the gateway reaches the client API, which needs every piece working.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createTokenSecret } from "@vexil/auth";
import { privateServersMissing, startPrivateNats, startPrivateRedis } from "../src/private-servers.js";
import { waitFor } from "../src/servers.js";
import { startVexilProcess, type VexilProcess } from "../src/vexil-process.js";
import { adminFetch, clusterServices, environment, everyServiceReady, readiness } from "./load.js";

const missing = privateServersMissing();

const tokens = {
  admin: createTokenSecret({ projects: ["*"], environment: "*" }),
  client: createTokenSecret({ projects: ["*"], environment }),
};

describe.skipIf(missing)("Vexil started while NATS and Redis are down", () => {
  const started: Array<{ dispose(): Promise<void> }> = [];

  afterEach(async () => {
    for (const running of started.splice(0).reverse()) await running.dispose();
  }, 60_000);

  /** A private NATS and Redis, stopped (their ports known, nothing listening), and Vexil started against them. */
  async function startWhileDown(mode: "cluster" | "single") {
    const nats = await startPrivateNats();
    const redis = await startPrivateRedis();
    started.push(nats, redis);
    await nats.stop();
    await redis.stop();
    const vexil = await startVexilProcess({
      mode,
      until: "live",
      env: {
        NATS_URL: nats.url,
        REDIS_URL: redis.url,
        LOG_LEVEL: "warn",
        INIT_ADMIN_API_TOKENS: tokens.admin,
        INIT_CLIENT_API_TOKENS: tokens.client,
      },
    });
    started.push({ dispose: () => vexil.stop() });
    return { nats, redis, vexil };
  }

  /** Every given address answers /ready 503 with the reason in its body. */
  const allSay = (urls: string[], reason: string) =>
    waitFor(async () => (await Promise.all(urls.map(readiness))).every((r) => r.status === 503 && r.text.includes(reason)), 120_000, 250);

  async function expectFlagReachesClients(vexil: VexilProcess, name: string) {
    const created = await adminFetch({ url: vexil.url, ...tokens }, "/api/admin/projects/default/features", {
      method: "POST",
      body: { name },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const seen = await waitFor(
      async () => {
        const res = await fetch(`${vexil.url}/api/client/features`, { headers: { authorization: tokens.client } });
        const body = (await res.json()) as { features?: Array<{ name: string }> };
        return res.ok && (body.features ?? []).some((f) => f.name === name);
      },
      30_000,
      250,
    );
    expect(seen, "the new flag reaches the client API").toBe(true);
  }

  it("the cluster: waits for Redis, serves SDKs and admin while NATS is still down, and is whole once both are back", async () => {
    const { nats, redis, vexil } = await startWhileDown("cluster");
    const services = clusterServices.map((s) => vexil.serviceUrl(s));
    expect(await allSay(services, "Redis unreachable"), "every service up, not ready, naming Redis").toBe(true);
    expect((await readiness(vexil.url)).status, "the gateway is not ready either").toBe(503);
    const redisBackAt = Date.now();
    await redis.start();
    const serving = [vexil.url, vexil.serviceUrl("admin"), vexil.serviceUrl("frontend-eval")];
    expect(
      await waitFor(async () => (await Promise.all(serving.map(readiness))).every((r) => r.status === 200), 120_000, 250),
      "admin, frontend-eval and the gateway ready with NATS still down",
    ).toBe(true);
    console.log(`cluster: admin, frontend-eval and the gateway ready ${Date.now() - redisBackAt} ms after Redis was back, NATS down`);
    // Its freshness check pings NATS on a timer, so the snapshots' reason may follow readiness by a tick.
    const saysWhy = async () => {
      const health = (await (await fetch(`${vexil.serviceUrl("frontend-eval")}/health`)).json()) as {
        details: { degraded: boolean; reasons: Array<{ name: string }> };
      };
      const reasons = health.details.reasons.map((r) => r.name);
      return health.details.degraded && reasons.includes("bus") && reasons.includes("snapshots:nats");
    };
    expect(await waitFor(saysWhy, 30_000, 250), "frontend-eval says it is degraded, naming the bus and its snapshots").toBe(true);
    // Written while NATS is down: admin takes it, and frontend-eval finds it in Redis.
    await expectFlagReachesClients(vexil, "while-nats-down");
    const natsBackAt = Date.now();
    await nats.start();
    expect(await everyServiceReady(vexil), "every service ready once both are back").toBe(true);
    console.log(`cluster: every service ready ${Date.now() - natsBackAt} ms after NATS was back`);
    expect(vexil.serviceExits(), "no process exited").toEqual({});
    await expectFlagReachesClients(vexil, "after-cluster-boot");
  }, 360_000);

  it("the single process: stays up and not ready while Redis is away, saying why, and becomes ready once both are back", async () => {
    const { nats, redis, vexil } = await startWhileDown("single");
    expect(await allSay([vexil.url], "Redis unreachable"), "up, not ready, naming Redis").toBe(true);
    await redis.start();
    await nats.start();
    const backAt = Date.now();
    expect(await waitFor(async () => (await readiness(vexil.url)).status === 200, 120_000, 250), "ready once both are back").toBe(true);
    console.log(`single process: ready ${Date.now() - backAt} ms after both were back`);
    expect(vexil.child.exitCode, "the process never exited").toBeNull();
    await expectFlagReachesClients(vexil, "after-single-boot");
  }, 360_000);
});
