/**
 * Vexil started while its NATS and its Redis are both down, as the cluster and as the single
 * process configured for them: every process stays up, live but not ready, says on `/ready` which
 * dependency it is waiting for, and becomes ready on its own once they are back, without a single
 * process exiting. Then a flag written through the gateway reaches the client API, which needs
 * every piece working.
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

  it("the cluster: every service stays up and not ready, saying why, and becomes ready once both are back", async () => {
    const { nats, redis, vexil } = await startWhileDown("cluster");
    const services = clusterServices.map((s) => vexil.serviceUrl(s));
    expect(await allSay(services, "NATS unreachable"), "every service up, not ready, naming NATS").toBe(true);
    expect((await readiness(vexil.url)).status, "the gateway is not ready either").toBe(503);
    await nats.start();
    expect(await allSay(services, "Redis unreachable"), "then naming Redis").toBe(true);
    const redisBackAt = Date.now();
    await redis.start();
    expect(await everyServiceReady(vexil), "every service ready once both are back").toBe(true);
    console.log(`cluster: every service ready ${Date.now() - redisBackAt} ms after Redis was back`);
    expect(vexil.serviceExits(), "no process exited").toEqual({});
    await expectFlagReachesClients(vexil, "after-cluster-boot");
  }, 360_000);

  it("the single process: stays up and not ready, saying why, and becomes ready once both are back", async () => {
    const { nats, redis, vexil } = await startWhileDown("single");
    expect(await allSay([vexil.url], "NATS unreachable"), "up, not ready, naming NATS").toBe(true);
    await nats.start();
    expect(await allSay([vexil.url], "Redis unreachable"), "then naming Redis").toBe(true);
    const redisBackAt = Date.now();
    await redis.start();
    expect(await waitFor(async () => (await readiness(vexil.url)).status === 200, 120_000, 250), "ready once both are back").toBe(true);
    console.log(`single process: ready ${Date.now() - redisBackAt} ms after Redis was back`);
    expect(vexil.child.exitCode, "the process never exited").toBeNull();
    await expectFlagReachesClients(vexil, "after-single-boot");
  }, 360_000);
});
