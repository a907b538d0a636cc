import { connect } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterAvailable, startTestSystem, type TestSystem } from "../src/harness.js";
import { natsUrl, waitFor } from "../src/servers.js";
import { startReceiver, type Receiver } from "./addons-receiver.js";

const available = await clusterAvailable("the addon-delivery restart test");

/**
 * In cluster mode, addon-delivery runs in its own process on JetStream. It is killed (SIGKILL)
 * while a request is in flight, events are written while it is down, and the cluster supervisor
 * starts it again: every event is delivered once, in order, in a project created at run time as in
 * `default`.
 */
describe.skipIf(!available)("addon delivery across a killed and restarted delivery process", () => {
  let vexil: TestSystem;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    vexil = await startTestSystem({
      mode: "cluster",
      env: { ADDONS_ALLOW_PRIVATE_URLS: "true", ADDONS_BACKOFF_BASE_MS: "20", ADDONS_BACKOFF_MAX_MS: "200" },
    });
    await vexil.createProject("deliveries");
  });

  afterAll(async () => {
    await vexil?.stop();
    await receiver?.close();
  });

  /** JetStream has handed every event to the delivery consumer and had each acked. */
  async function consumerCaughtUp(): Promise<boolean> {
    const nc = await connect({ servers: natsUrl });
    try {
      const info = await (await nc.jetstreamManager()).consumers.info(vexil.namespace!, "addon-delivery");
      return info.num_pending === 0 && info.num_ack_pending === 0;
    } finally {
      await nc.close();
    }
  }

  it("delivers every event, each answered 2xx exactly once and in order", async () => {
    const created = await vexil.expectStatus(
      "/api/admin/addons",
      {
        method: "POST",
        body: { provider: "webhook", enabled: true, parameters: { url: receiver.url("/restart") }, events: ["feature-created"] },
      },
      200,
    );
    // Alternating projects: the one every installation has and one created while Vexil runs.
    const flags = Array.from({ length: 20 }, (_, i) => ({
      name: `restart-${String(i).padStart(2, "0")}`,
      project: i % 2 === 0 ? "default" : "deliveries",
    }));
    const createFlag = ({ name, project }: { name: string; project: string }) =>
      vexil.expectStatus(`/api/admin/projects/${project}/features`, { method: "POST", body: { name } }, 201);
    // The sixth request is held unanswered: the process dies with it in flight.
    receiver.respondWith((_req, count) => (count === 6 ? null : 200));

    for (const flag of flags.slice(0, 10)) await createFlag(flag);
    expect(await waitFor(async () => receiver.on("/restart").length === 6, 30_000, 25)).toBe(true);
    expect(await waitFor(consumerCaughtUp, 30_000, 50)).toBe(true);
    const killed = vexil.process.servicePid("addon-delivery");
    process.kill(killed, "SIGKILL");

    // Written while the delivery process is down or starting: JetStream keeps them for the durable consumer.
    for (const flag of flags.slice(10)) await createFlag(flag);

    const delivered = await waitFor(async () => receiver.answered("/restart").length >= 20, 60_000, 50);
    expect(delivered, vexil.process.output().slice(-4000)).toBe(true);
    expect(vexil.process.servicePid("addon-delivery")).not.toBe(killed);
    // Nothing is left to deliver once JetStream has every event acked: a duplicate would have come by then.
    expect(await waitFor(consumerCaughtUp, 60_000, 50)).toBe(true);

    const answered = receiver.answered("/restart");
    const answeredBodies = answered.map((r) => JSON.parse(r.body));
    expect(answeredBodies.map((body) => body.featureName)).toEqual(flags.map((f) => f.name));
    expect(answeredBodies.map((body) => body.project)).toEqual(flags.map((f) => f.project));
    expect(new Set(answered.map((r) => r.headers["idempotency-key"])).size).toBe(20);
    // Only the request the dead process never got an answer to was sent again, with the same key.
    const all = receiver.on("/restart");
    expect(all).toHaveLength(21);
    expect(all[5]!.status).toBeNull();
    expect(all[6]!.headers["idempotency-key"]).toBe(all[5]!.headers["idempotency-key"]);

    const { integrationEvents } = await vexil.expectStatus(`/api/admin/addons/${created.id}/events?limit=100`, undefined, 200);
    expect(integrationEvents.filter((e: { state: string }) => e.state === "success")).toHaveLength(20);
  }, 300_000);
});
