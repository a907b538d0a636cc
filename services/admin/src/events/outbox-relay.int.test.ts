import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { connect, nuid, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createNatsBus, namespacedBus, startOutboxRelay, type Bus, type EventMessage, type OutboxSource } from "@vexil/bus";
import { topics } from "@vexil/contracts";
import { createEmbeddedEngine, type StoreEngine } from "@vexil/store";
import { systemActor } from "../access/actor.js";
import { EventStore } from "./event-store.js";
import { UnitOfWork } from "./unit-of-work.js";

const servers = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const nats: NatsConnection | null = await connect({ servers, timeout: 1000, reconnect: false }).catch(() => null);
if (!nats) console.warn(`skipped: NATS not reachable at ${servers}`);

const namespace = `test_${nuid.next()}`;
const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn(), debug: vi.fn() };

/**
 * The admin outbox against the real JetStream: events written with their change, the relay killed
 * after publishing but before marking, then NATS failing mid-batch; after recovery every event
 * reaches the consumer exactly once.
 */
describe.skipIf(!nats)("admin outbox relay on JetStream", () => {
  let dir: string;
  let engine: StoreEngine;
  let events: EventStore;
  let unitOfWork: UnitOfWork;
  let bus: Bus;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "vexil-outbox-"));
    engine = await createEmbeddedEngine({ dir });
    events = await EventStore.create(engine);
    unitOfWork = new UnitOfWork(engine, events);
    const inner = await createNatsBus({ servers, streamName: namespace, streamSubjects: [`${namespace}.events.>`], logger });
    bus = namespacedBus(inner, namespace);
  });
  afterAll(async () => {
    await bus?.close();
    await nats!.jetstreamManager().then((jsm) => jsm.streams.delete(namespace));
    await nats!.close();
    await engine?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const write = (featureName: string) =>
    unitOfWork.run(async (tx) => {
      await tx.record({ type: "feature-created", actor: systemActor, project: "default", featureName, data: { name: featureName } });
    });

  it("publishes every event exactly once after the relay and NATS fail between write and publish", async () => {
    const deliveries: EventMessage[] = [];
    const handled = new Set<string>();
    let sideEffects = 0;
    const consumer = await bus.consume("outbox-it", topics.domainEvents, (msg) => {
      deliveries.push(msg);
      // Consumers are idempotent on the event id: a redelivered id is acknowledged, not applied.
      const id = msg.data.id;
      if (handled.has(id)) return;
      handled.add(id);
      sideEffects++;
    });

    for (const name of ["a", "b", "c"]) await write(name);

    // 1. The relay publishes, then dies before it can mark the batch sent.
    let marksToFail = 1;
    const dyingStore: OutboxSource = {
      pending: (limit) => events.pending(limit),
      markPublished: async (ids) => {
        if (marksToFail-- > 0) throw new Error("process killed after publish, before mark");
        await events.markPublished(ids);
      },
    };
    const killed = startOutboxRelay({ source: dyingStore, bus, logger, intervalMs: 60_000 });
    await vi.waitFor(() => expect(logger.error).toHaveBeenCalledTimes(1));
    await killed.stop();
    expect(await events.pending(100)).toHaveLength(3);

    // 2. More writes, then NATS goes away after the first publish of the next pass.
    for (const name of ["d", "e"]) await write(name);
    let publishesLeft = 1;
    const flakyBus: Pick<Bus, "publishEvent"> = {
      publishEvent: (topic, payload, options) => {
        if (publishesLeft-- > 0) return bus.publishEvent(topic, payload, options);
        return Promise.reject(new Error("NATS connection closed"));
      },
    };
    const cutOff = startOutboxRelay({ source: events, bus: flakyBus, logger, intervalMs: 60_000 });
    await vi.waitFor(() => expect(logger.error).toHaveBeenCalledTimes(2));
    await cutOff.stop();
    // The one publish that got through was marked; the rest wait in the outbox.
    expect((await events.pending(100)).map((e) => (e.payload as { featureName: string }).featureName)).toEqual(["b", "c", "d", "e"]);

    // 3. Recovery: a healthy relay drains the outbox.
    const recovered = startOutboxRelay({ source: events, bus, logger, intervalMs: 60_000 });
    await vi.waitFor(() => expect(recovered.runOnce()).resolves.toBe(0));
    await recovered.stop();
    expect(await events.pending(100)).toEqual([]);

    const all = (await events.list()).events.map((e) => String(e._id)).reverse();
    await vi.waitFor(() => expect(handled.size).toBe(all.length));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await consumer.stop();

    expect([...handled]).toEqual(all);
    expect(sideEffects).toBe(5);
    // JetStream dropped the republished copies by msgId: each event was delivered once.
    expect(deliveries.map((m) => m.msgId)).toEqual(all);
    expect(deliveries.every((m) => m.deliveryCount === 1)).toBe(true);
    expect(deliveries.map((m) => m.subject)).toEqual(all.map(() => "events.feature-created"));
    const info = await (await nats!.jetstreamManager()).streams.info(namespace);
    expect(info.state.messages).toBe(5);
  });
});
