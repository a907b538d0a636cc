/**
 * The cluster started while its NATS and its Redis are both down: every service stays up, live but
 * not ready, says on `/ready` which dependency it is waiting for, and becomes ready on its own once
 * they are back, without a single process exiting. Then a flag written through the gateway reaches
 * the client API, which needs every piece working.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createTokenSecret } from "@vexil/auth";
import { privateServersMissing, startPrivateNats, startPrivateRedis, type PrivateServer } from "../src/private-servers.js";
import { waitFor } from "../src/servers.js";
import { startVexilProcess, type VexilProcess } from "../src/vexil-process.js";
import { adminFetch, clusterServices, environment, everyServiceReady, readiness } from "./load.js";

const missing = privateServersMissing();

describe.skipIf(missing)("a cluster started while NATS and Redis are down", () => {
  let nats: PrivateServer | undefined;
  let redis: PrivateServer | undefined;
  let vexil: VexilProcess | undefined;

  afterAll(async () => {
    await vexil?.stop();
    await nats?.dispose();
    await redis?.dispose();
  }, 60_000);

  it("stays up and not ready, saying why, and becomes ready once both are back", async () => {
    nats = await startPrivateNats();
    redis = await startPrivateRedis();
    // Their ports stay known and nothing listens there until they start again.
    await nats.stop();
    await redis.stop();
    const tokens = {
      admin: createTokenSecret({ projects: ["*"], environment: "*" }),
      client: createTokenSecret({ projects: ["*"], environment }),
    };
    vexil = await startVexilProcess({
      mode: "cluster",
      until: "live",
      env: {
        NATS_URL: nats.url,
        REDIS_URL: redis.url,
        LOG_LEVEL: "warn",
        INIT_ADMIN_API_TOKENS: tokens.admin,
        INIT_CLIENT_API_TOKENS: tokens.client,
      },
    });
    const started = vexil;
    const everyServiceSays = (reason: string) =>
      waitFor(
        async () =>
          (await Promise.all(clusterServices.map((s) => readiness(started.serviceUrl(s))))).every(
            (r) => r.status === 503 && r.text.includes(reason),
          ),
        120_000,
        250,
      );

    expect(await everyServiceSays("NATS unreachable"), "every service up, not ready, naming NATS").toBe(true);
    expect((await readiness(started.url)).status, "the gateway is not ready either").toBe(503);
    await nats.start();
    expect(await everyServiceSays("Redis unreachable"), "then naming Redis").toBe(true);
    const redisBackAt = Date.now();
    await redis.start();
    expect(await everyServiceReady(started), "every service ready once both are back").toBe(true);
    console.log(`every service ready ${Date.now() - redisBackAt} ms after Redis was back`);
    expect(started.serviceExits(), "no process exited").toEqual({});

    const created = await adminFetch({ url: started.url, ...tokens }, "/api/admin/projects/default/features", {
      method: "POST",
      body: { name: "after-boot" },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const seen = await waitFor(
      async () => {
        const res = await fetch(`${started.url}/api/client/features`, { headers: { authorization: tokens.client } });
        const body = (await res.json()) as { features?: Array<{ name: string }> };
        return res.ok && (body.features ?? []).some((f) => f.name === "after-boot");
      },
      30_000,
      250,
    );
    expect(seen, "the new flag reaches the client API").toBe(true);
  }, 360_000);
});
