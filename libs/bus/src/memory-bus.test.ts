import { afterEach, describe, expect, it, vi } from "vitest";
import type { Transport } from "./bus.js";
import { createMemoryTransport } from "./memory-bus.js";
import { describeTransportContract } from "./transport.contract.js";

let opened = 0;
describeTransportContract("memory", async (logger) => {
  const events = `events${++opened}`;
  return { transport: createMemoryTransport({ logger, streamSubjects: [`${events}.>`] }), events, notices: `notices${opened}` };
});

/** What the memory bus alone promises: timings to the millisecond under a fake clock, one consumer per durable. */
describe("memory bus", () => {
  let bus: Transport;
  afterEach(async () => {
    vi.useRealTimers();
    await bus?.close();
  });

  it("forgets a msgId once the duplicate window has passed", async () => {
    vi.useFakeTimers();
    bus = createMemoryTransport({ duplicateWindowMs: 60_000 });
    expect(await bus.publishEvent("events.a", { n: 1 }, { msgId: "e1" })).toEqual({ seq: 1, duplicate: false });
    vi.advanceTimersByTime(59_999);
    expect(await bus.publishEvent("events.a", { n: 1 }, { msgId: "e1" })).toEqual({ seq: 1, duplicate: true });
    vi.advanceTimersByTime(1);
    expect(await bus.publishEvent("events.a", { n: 1 }, { msgId: "e1" })).toEqual({ seq: 2, duplicate: false });
  });

  it("redelivers a failed event exactly when its backoff ends", async () => {
    vi.useFakeTimers();
    bus = createMemoryTransport();
    const attempts: Array<[string | undefined, number]> = [];
    let failuresLeft = 2;
    await bus.publishEvent("events.a", 1, { msgId: "first" });
    await bus.publishEvent("events.a", 2, { msgId: "second" });
    await bus.consume(
      "d",
      "events.>",
      (msg) => {
        attempts.push([msg.msgId, msg.deliveryCount]);
        if (msg.msgId === "first" && failuresLeft-- > 0) throw new Error("webhook down");
      },
      { backoffMs: [1000, 5000] },
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(attempts).toEqual([["first", 1]]);
    await vi.advanceTimersByTimeAsync(999);
    expect(attempts).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(attempts).toEqual([
      ["first", 1],
      ["first", 2],
    ]);
    await vi.advanceTimersByTimeAsync(4999);
    expect(attempts).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(attempts).toEqual([
      ["first", 1],
      ["first", 2],
      ["first", 3],
      ["second", 1],
    ]);
  });

  it("waits exactly what a backoff function says", async () => {
    vi.useFakeTimers();
    bus = createMemoryTransport();
    const attempts: number[] = [];
    await bus.publishEvent("events.a", 1, { msgId: "1" });
    await bus.consume(
      "d",
      "events.a",
      (msg) => {
        attempts.push(msg.deliveryCount);
        if (msg.deliveryCount < 3) throw new Error("not yet");
      },
      { backoffMs: (attempt) => attempt * 100 },
    );
    await vi.advanceTimersByTimeAsync(100);
    expect(attempts).toEqual([1, 2]);
    await vi.advanceTimersByTimeAsync(199);
    expect(attempts).toEqual([1, 2]);
    await vi.advanceTimersByTimeAsync(1);
    expect(attempts).toEqual([1, 2, 3]);
  });

  it("allows one active consumer per durable", async () => {
    bus = createMemoryTransport();
    await bus.consume("d", "events.a", () => {});
    await expect(bus.consume("d", "events.a", () => {})).rejects.toThrow(/already has an active consumer/);
  });

  it("refuses work once closed", async () => {
    bus = createMemoryTransport();
    await bus.close();
    expect(() => bus.publish("a", 1)).toThrow(/closed/);
    await expect(bus.publishEvent("a", 1, { msgId: "1" })).rejects.toThrow(/closed/);
  });
});
