import { type NatsConnection, connect, nuid } from "nats";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { EventMessage } from "./bus.js";
import { createNatsBus } from "./nats-bus.js";
import { type OutboxEvent, type OutboxSource, startOutboxRelay } from "./outbox-relay.js";
import { anything, eventOn } from "./topic.fixture.js";
import type { Bus } from "./topic.js";

const servers = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const admin: NatsConnection | null = await connect({ servers, timeout: 1000, reconnect: false }).catch(() => null);
if (!admin) console.warn(`skipped: NATS not reachable at ${servers}`);

const stream = `test_${nuid.next()}`;
const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn(), debug: vi.fn() };

describe.skipIf(!admin)("outbox relay on JetStream", () => {
  let bus: Bus;
  beforeAll(async () => {
    bus = await createNatsBus({ servers, streamName: stream, streamSubjects: [`${stream}.>`], logger });
  });
  afterAll(async () => {
    await bus?.close();
    await admin!.jetstreamManager().then((jsm) => jsm.streams.delete(stream));
    await admin!.close();
  });

  it("delivers each event exactly once when markPublished fails after the publish", async () => {
    const rows = ["e1", "e2", "e3"].map((id) => ({
      id,
      topic: eventOn(`${stream}.feature-updated`, anything),
      payload: { id },
      published: false,
    }));
    let marksToFail = 1;
    const source: OutboxSource = {
      async pending(limit): Promise<OutboxEvent[]> {
        return rows.filter((r) => !r.published).slice(0, limit);
      },
      async markPublished(ids) {
        if (marksToFail-- > 0) throw new Error("store write failed after publish");
        for (const row of rows) if (ids.includes(row.id)) row.published = true;
      },
    };
    const seen: EventMessage[] = [];
    const consumer = await bus.consume("relay-check", eventOn(`${stream}.>`, anything), (msg) => void seen.push(msg));

    const crashed = startOutboxRelay({ source, bus, logger, intervalMs: 60_000 });
    await vi.waitFor(() =>
      expect(logger.error).toHaveBeenCalledWith(expect.anything(), expect.stringContaining("outbox relay pass failed")),
    );
    await crashed.stop();
    expect(rows.every((r) => !r.published)).toBe(true);

    const recovered = startOutboxRelay({ source, bus, logger, intervalMs: 60_000 });
    await vi.waitFor(() => expect(rows.every((r) => r.published)).toBe(true));
    await recovered.stop();

    await vi.waitFor(() => expect(seen).toHaveLength(3));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await consumer.stop();
    expect(seen.map((m) => [m.msgId, m.data, m.deliveryCount])).toEqual([
      ["e1", { id: "e1" }, 1],
      ["e2", { id: "e2" }, 1],
      ["e3", { id: "e3" }, 1],
    ]);
    const info = await (await admin!.jetstreamManager()).streams.info(stream);
    expect(info.state.messages).toBe(3);
  });
});
