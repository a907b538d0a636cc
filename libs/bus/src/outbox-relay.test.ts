import { afterEach, describe, expect, it, vi } from "vitest";
import { createMemoryBus } from "./memory-bus.js";
import { anything, eventOn } from "./topic.fixture.js";
import type { Bus } from "./topic.js";
import { type OutboxEvent, type OutboxRelay, type OutboxSource, startOutboxRelay } from "./outbox-relay.js";

/** Outbox in memory; `failMarks` makes the next markPublished calls throw after the publish. */
function createFakeOutbox() {
  const rows: Array<OutboxEvent & { published: boolean }> = [];
  let failMarks = 0;
  let failReads = 0;
  const source: OutboxSource = {
    async pending(limit) {
      if (failReads > 0 && failReads--) throw new Error("store unavailable");
      return rows
        .filter((r) => !r.published)
        .slice(0, limit)
        .map(({ id, topic, payload }) => ({ id, topic, payload }));
    },
    async markPublished(ids) {
      if (failMarks > 0 && failMarks--) throw new Error("store write failed");
      for (const row of rows) if (ids.includes(row.id)) row.published = true;
    },
  };
  return {
    source,
    add: (id: string, payload: unknown = { id }) => rows.push({ id, topic: eventOn(`events.${id}`, anything), payload, published: false }),
    failNextMarks: (n: number) => (failMarks = n),
    failNextReads: (n: number) => (failReads = n),
    unpublished: () => rows.filter((r) => !r.published).map((r) => r.id),
  };
}

const allEvents = eventOn("events.>", anything);
const logger = () => ({ info: vi.fn(), warn: vi.fn(), error: vi.fn(), debug: vi.fn() });

describe("outbox relay", () => {
  let relay: OutboxRelay | undefined;
  let bus: Bus;
  afterEach(async () => {
    await relay?.stop();
    await bus?.close();
    vi.useRealTimers();
  });

  it("publishes pending events with msgId = id and marks them published", async () => {
    bus = createMemoryBus();
    const outbox = createFakeOutbox();
    outbox.add("a", { n: 1 });
    outbox.add("b", { n: 2 });
    const seen: unknown[] = [];
    await bus.consume("c", allEvents, (msg) => void seen.push([msg.msgId, msg.subject, msg.data]));
    relay = startOutboxRelay({ source: outbox.source, bus, logger: logger(), intervalMs: 60_000 });
    await relay.runOnce();
    expect(outbox.unpublished()).toEqual([]);
    await vi.waitFor(() => expect(seen).toHaveLength(2));
    expect(seen).toEqual([
      ["a", "events.a", { n: 1 }],
      ["b", "events.b", { n: 2 }],
    ]);
  });

  it("republishes after a failed markPublished and consumers still see each event once", async () => {
    bus = createMemoryBus();
    const outbox = createFakeOutbox();
    const log = logger();
    outbox.add("a");
    outbox.add("b");
    outbox.failNextMarks(1);
    const publishEvent = vi.spyOn(bus, "publishEvent");
    const seen: string[] = [];
    await bus.consume("c", allEvents, (msg) => void seen.push(msg.msgId!));
    relay = startOutboxRelay({ source: outbox.source, bus, logger: log, intervalMs: 60_000 });
    await vi.waitFor(() =>
      expect(log.error).toHaveBeenCalledWith(
        expect.objectContaining({ err: expect.any(Error) }),
        expect.stringContaining("outbox relay pass failed"),
      ),
    );
    expect(outbox.unpublished()).toEqual(["a", "b"]);

    expect(await relay.runOnce()).toBe(2);
    expect(outbox.unpublished()).toEqual([]);
    expect(publishEvent).toHaveBeenCalledTimes(4);
    await expect(publishEvent.mock.results[3].value).resolves.toMatchObject({ duplicate: true });
    await vi.waitFor(() => expect(seen).toEqual(["a", "b"]));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen).toEqual(["a", "b"]);
  });

  it("marks what it published before a publish failure and retries the rest on the next tick, logging the failure once", async () => {
    vi.useFakeTimers();
    bus = createMemoryBus({ streamSubjects: ["events.a", "events.c"] });
    const outbox = createFakeOutbox();
    const log = logger();
    outbox.add("a");
    outbox.add("b");
    outbox.add("c");
    relay = startOutboxRelay({ source: outbox.source, bus, logger: log, intervalMs: 500 });
    await vi.advanceTimersByTimeAsync(0);
    expect(outbox.unpublished()).toEqual(["b", "c"]);
    expect(log.error).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(500);
    // The same failure again, within the minute: counted, not logged again.
    expect(log.error).toHaveBeenCalledTimes(1);
    expect(log.warn).not.toHaveBeenCalled();
    expect(outbox.unpublished()).toEqual(["b", "c"]);
  });

  it("survives a failing source and polls again", async () => {
    vi.useFakeTimers();
    bus = createMemoryBus();
    const outbox = createFakeOutbox();
    outbox.failNextReads(2);
    outbox.add("a");
    relay = startOutboxRelay({ source: outbox.source, bus, logger: logger(), intervalMs: 1000 });
    await vi.advanceTimersByTimeAsync(1000);
    expect(outbox.unpublished()).toEqual(["a"]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(outbox.unpublished()).toEqual([]);
  });

  it("poke runs a pass without waiting for the interval", async () => {
    vi.useFakeTimers();
    bus = createMemoryBus();
    const outbox = createFakeOutbox();
    relay = startOutboxRelay({ source: outbox.source, bus, logger: logger(), intervalMs: 60_000 });
    await vi.advanceTimersByTimeAsync(0);
    outbox.add("a");
    relay.poke();
    await vi.advanceTimersByTimeAsync(0);
    expect(outbox.unpublished()).toEqual([]);
  });

  it("drains a backlog larger than one batch in a single pass", async () => {
    bus = createMemoryBus();
    const outbox = createFakeOutbox();
    for (let i = 0; i < 25; i++) outbox.add(`e${i}`);
    relay = startOutboxRelay({ source: outbox.source, bus, logger: logger(), intervalMs: 60_000, batchSize: 10 });
    await relay.runOnce();
    expect(outbox.unpublished()).toEqual([]);
  });

  it("stop waits for the pass in flight and then stops polling", async () => {
    bus = createMemoryBus();
    const outbox = createFakeOutbox();
    outbox.add("a");
    let releaseRead!: () => void;
    const pending = outbox.source.pending;
    outbox.source.pending = async (limit) => {
      await new Promise<void>((resolve) => (releaseRead = resolve));
      return pending(limit);
    };
    relay = startOutboxRelay({ source: outbox.source, bus, logger: logger(), intervalMs: 5 });
    await vi.waitFor(() => expect(releaseRead).toBeTypeOf("function"));
    const stopped = relay.stop();
    releaseRead();
    await stopped;
    expect(outbox.unpublished()).toEqual([]);
    outbox.add("b");
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(outbox.unpublished()).toEqual(["b"]);
    await expect(relay.runOnce()).rejects.toThrow(/stopped/);
  });

  it("rejects a bad interval or batch size", () => {
    bus = createMemoryBus();
    const { source } = createFakeOutbox();
    expect(() => startOutboxRelay({ source, bus, logger: logger(), intervalMs: 0 })).toThrow(RangeError);
    expect(() => startOutboxRelay({ source, bus, logger: logger(), batchSize: 0 })).toThrow(RangeError);
  });
});
