import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { connect } from "nats";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { topics, type AddonConfig, type DomainEvent } from "@vexil/contracts";
import type { Bus } from "@vexil/bus";
import { createMemoryCache } from "@vexil/cache";
import { createLogger } from "@vexil/logger";
import { openBus, platformEnv, type VexilService } from "@vexil/runtime";
import { createEmbeddedEngine, type StoreEngine } from "@vexil/store";
import { createHttpSender, type Sender } from "./delivery/http-sender.js";
import { createAddonDeliveryService } from "./service.js";

/**
 * Two delivery replicas over one store (as two pods over MongoDB), each with its own connection to
 * the real NATS and bound to the same durable consumer, sending to a real HTTP receiver on loopback.
 */
const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const nats = await connect({ servers: natsUrl, timeout: 1000, reconnect: false }).catch(() => null);
if (!nats) console.warn(`skipped: NATS not reachable at ${natsUrl}`);
const logger = createLogger({ service: "addon-delivery-replicas-test", level: "silent" });
// Exactly once holds while no attempt outlasts its request timeout or its claim (timeout + lease). A
// loaded machine stalls for hundreds of milliseconds: shorter timings make a late answer a retry and a
// stalled replica's delivery another's, both sent twice as designed (the receiver has the key).
const settings = { allowPrivateUrls: true, maxAttempts: 5, backoffBaseMs: 5, backoffMaxMs: 20, requestTimeoutMs: 5_000, leaseMs: 2_000 };

interface Received {
  path: string;
  key: string;
  featureName: string;
}

describe.skipIf(!nats)("addon delivery with two replicas sharing one store", () => {
  let dir: string;
  let store: StoreEngine;
  let namespace: string;
  /** Admin's side: publishes the events and answers for the addon configurations. */
  let bus: Bus;
  let buses: Bus[];
  let receiver: Server;
  let baseUrl: string;
  let received: Received[];
  let addons: AddonConfig[];
  const replicas: VexilService[] = [];

  afterAll(() => nats?.close());

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "vexil-delivery-replicas-"));
    store = await createEmbeddedEngine({ dir });
    // Stream and subjects unique to each test, removed after it.
    namespace = `test_replicas_${randomUUID().slice(0, 8)}`;
    buses = [];
    bus = await connectBus("admin");
    received = [];
    receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        received.push({ path: req.url ?? "/", key: String(req.headers["idempotency-key"]), featureName: JSON.parse(body).featureName });
        // A few milliseconds of work, so the replicas overlap.
        setTimeout(() => res.end("ok"), Math.random() * 5);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    addons = [1, 2, 3].map((id) => ({
      id,
      provider: "webhook",
      enabled: true,
      parameters: { url: `${baseUrl}/addon-${id}` },
      events: ["feature-created"],
      projects: [],
      environments: [],
    }));
    bus.reply(topics.addonsList, () => ({ addons }));
  });
  afterEach(async () => {
    await Promise.all(replicas.splice(0).map((r) => r.stop()));
    await Promise.all(buses.map((b) => b.close()));
    await (await nats!.jetstreamManager()).streams.delete(namespace).catch(() => undefined);
    await store.close();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  async function connectBus(name: string): Promise<Bus> {
    const config = platformEnv.parse({ NATS_URL: natsUrl, NATS_STREAM: namespace, NATS_NAMESPACE: namespace });
    const opened = await openBus(config, name, logger);
    buses.push(opened);
    return opened;
  }

  async function startReplica(replicaId: string, send?: Sender): Promise<{ sent: string[] }> {
    const sent: string[] = [];
    const http = createHttpSender({ allowPrivate: true, timeoutMs: settings.requestTimeoutMs });
    const replica = await createAddonDeliveryService({
      engines: { store, bus: await connectBus(replicaId), cache: createMemoryCache() },
      logger,
      settings: { ...settings, replicaId },
      send: (request) => {
        sent.push(request.headers["idempotency-key"]);
        return (send ?? http)(request);
      },
    });
    await replica.start();
    replicas.push(replica);
    return { sent };
  }

  const events = (count: number, prefix: string): DomainEvent[] =>
    Array.from({ length: count }, (_, i) => ({
      id: `${prefix}-${i}`,
      type: "feature-created",
      createdAt: new Date().toISOString(),
      createdBy: "alice",
      createdByUserId: 1,
      project: "default",
      environment: null,
      featureName: `${prefix}-${String(i).padStart(2, "0")}`,
      data: null,
      preData: null,
      tags: [],
    }));
  const publish = (e: DomainEvent) => bus.publishEvent(topics.domainEvents.of(e.type), e, { msgId: e.id });
  const namesAt = (path: string) => received.filter((r) => r.path === path).map((r) => r.featureName);

  it("delivers 50 events to each addon exactly once, in order per addon", async () => {
    const a = await startReplica("replica-a");
    const b = await startReplica("replica-b");
    const burst = events(50, "burst");
    for (const e of burst) await publish(e);

    // Deadlines, not measurements: generous, as a loaded machine runs the replicas slowly.
    await vi.waitFor(() => expect(received).toHaveLength(150), { timeout: 60_000, interval: 50 });
    // Long enough for a duplicate to show up: several lease lengths.
    await new Promise((r) => setTimeout(r, 4 * settings.leaseMs));
    expect(received).toHaveLength(150);
    expect(new Set(received.map((r) => r.key)).size).toBe(150);
    for (const id of [1, 2, 3]) expect(namesAt(`/addon-${id}`)).toEqual(burst.map((e) => e.featureName));
    // Every send went out from exactly one replica.
    expect(a.sent.length + b.sent.length).toBe(150);
  }, 90_000);

  it("takes over the queue of a replica that stopped renewing, sending each delivery once", async () => {
    // Replica a hangs on its first request per addon: as good as dead, holding leases and claims.
    const unstick: Array<() => void> = [];
    const a = await startReplica("replica-a", () => new Promise((resolve) => unstick.push(() => resolve({ statusCode: 200, body: "" }))));
    const burst = events(5, "takeover");
    for (const e of burst) await publish(e);
    await vi.waitFor(() => expect(unstick).toHaveLength(3));
    expect(received).toHaveLength(0);

    const b = await startReplica("replica-b");
    // b waits out a's addon leases and then a's claims on the three heads, then delivers all.
    await vi.waitFor(() => expect(received).toHaveLength(15), { timeout: 30_000, interval: 50 });
    for (const id of [1, 2, 3]) expect(namesAt(`/addon-${id}`)).toEqual(burst.map((e) => e.featureName));
    expect(new Set(received.map((r) => r.key)).size).toBe(15);
    expect(a.sent).toHaveLength(3);
    expect(b.sent).toHaveLength(15);

    // a comes back to life with a 2xx far too late: its claims were taken, it records nothing.
    unstick.forEach((answer) => answer());
    await new Promise((r) => setTimeout(r, 2 * settings.leaseMs));
    const log = (await bus.request(topics.addonDeliveries, { addonId: 1, limit: 100, offset: 0 })).integrationEvents;
    expect(log.map((entry) => [entry.state, entry.details.attempt])).toEqual(burst.map(() => ["success", 1]));
    expect(a.sent).toHaveLength(3);
  }, 60_000);
});
