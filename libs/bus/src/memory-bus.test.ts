import { afterEach, describe, expect, it, vi } from "vitest";
import { BusRequestError, type EventMessage, type Transport } from "./bus.js";
import { createMemoryTransport } from "./memory-bus.js";

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe("memory bus notifications", () => {
  it("delivers to exact, * and > subscribers, with the concrete subject", async () => {
    const bus = createMemoryTransport();
    const seen: string[] = [];
    bus.subscribe("snapshot.updated.production", (_, subject) => void seen.push(`exact:${subject}`));
    bus.subscribe("snapshot.updated.*", (_, subject) => void seen.push(`star:${subject}`));
    bus.subscribe("snapshot.>", (_, subject) => void seen.push(`gt:${subject}`));
    bus.subscribe("snapshot.*", () => void seen.push("too-short"));
    bus.publish("snapshot.updated.production", { revision: 1 });
    await flush();
    expect(seen.sort()).toEqual([
      "exact:snapshot.updated.production",
      "gt:snapshot.updated.production",
      "star:snapshot.updated.production",
    ]);
  });

  it("copies payloads as JSON would", async () => {
    const bus = createMemoryTransport();
    const received: unknown[] = [];
    bus.subscribe("a", (payload) => void received.push(payload));
    const payload = { at: new Date(0), nested: { list: [1] }, skip: undefined };
    bus.publish("a", payload);
    payload.nested.list.push(2);
    await flush();
    expect(received).toEqual([{ at: "1970-01-01T00:00:00.000Z", nested: { list: [1] } }]);
  });

  it("stops delivering after unsubscribe, and a failing handler does not affect others", async () => {
    const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn(), debug: vi.fn() };
    const bus = createMemoryTransport({ logger });
    const good = vi.fn();
    bus.subscribe("a", () => {
      throw new Error("boom");
    });
    bus.subscribe("a", good);
    const gone = vi.fn();
    bus.subscribe("a", gone).unsubscribe();
    bus.publish("a", 1);
    await flush();
    expect(good).toHaveBeenCalledWith(1, "a");
    expect(gone).not.toHaveBeenCalled();
    expect(logger.error).toHaveBeenCalledWith(expect.objectContaining({ subject: "a" }), "notification handler failed");
  });

  it("rejects invalid subjects", () => {
    const bus = createMemoryTransport();
    expect(() => bus.publish("a.*", 1)).toThrow(/wildcards are not allowed/);
    expect(() => bus.publish("", 1)).toThrow(TypeError);
    expect(() => bus.subscribe("a..b", () => {})).toThrow(/empty token/);
    expect(() => bus.subscribe("a.>.b", () => {})).toThrow(/must be last/);
    expect(() => bus.subscribe("a.b*", () => {})).toThrow(/whole token/);
  });
});

describe("memory bus request/reply", () => {
  it("returns the handler's reply", async () => {
    const bus = createMemoryTransport();
    bus.reply("tokens.check", (payload) => ({ valid: (payload as { token: string }).token === "good" }));
    await expect(bus.request("tokens.check", { token: "good" })).resolves.toEqual({ valid: true });
    await expect(bus.request("tokens.check", { token: "bad" })).resolves.toEqual({ valid: false });
  });

  it("rejects with the handler's error message", async () => {
    const bus = createMemoryTransport();
    bus.reply("tokens.check", () => {
      const err = new Error("token store offline");
      err.name = "NotReady";
      throw err;
    });
    const err = await bus.request("tokens.check", {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BusRequestError);
    expect(err).toMatchObject({ code: "remote", message: "token store offline", remoteName: "NotReady" });
  });

  it("rejects without responders and on timeout", async () => {
    const bus = createMemoryTransport();
    await expect(bus.request("nobody.home", {})).rejects.toMatchObject({ code: "no-responders" });
    bus.reply("slow", () => new Promise(() => {}));
    await expect(bus.request("slow", {}, { timeoutMs: 20 })).rejects.toMatchObject({ code: "timeout" });
  });

  it("stops answering after unsubscribe", async () => {
    const bus = createMemoryTransport();
    bus.reply("x.*", () => "ok").unsubscribe();
    await expect(bus.request("x.y", {})).rejects.toMatchObject({ code: "no-responders" });
  });
});

describe("memory bus events", () => {
  let bus: Transport;
  afterEach(async () => {
    vi.useRealTimers();
    await bus?.close();
  });

  it("dedupes by msgId inside the duplicate window", async () => {
    vi.useFakeTimers();
    bus = createMemoryTransport({ duplicateWindowMs: 60_000 });
    expect(await bus.publishEvent("events.a", { n: 1 }, { msgId: "e1" })).toEqual({ seq: 1, duplicate: false });
    expect(await bus.publishEvent("events.a", { n: 1 }, { msgId: "e1" })).toEqual({ seq: 1, duplicate: true });
    expect(await bus.publishEvent("events.a", { n: 2 }, { msgId: "e2" })).toEqual({ seq: 2, duplicate: false });
    vi.advanceTimersByTime(60_000);
    expect(await bus.publishEvent("events.a", { n: 1 }, { msgId: "e1" })).toEqual({ seq: 3, duplicate: false });
  });

  it("rejects a missing msgId and subjects outside the stream", async () => {
    bus = createMemoryTransport({ streamSubjects: ["events.>"] });
    await expect(bus.publishEvent("events.a", {}, { msgId: "" })).rejects.toThrow(/msgId/);
    await expect(bus.publishEvent("other.a", {}, { msgId: "x" })).rejects.toThrow(/no stream matches/);
  });

  it("delivers matching events in order, acked once each, and resumes a durable after restart", async () => {
    bus = createMemoryTransport();
    const handled: EventMessage[] = [];
    await bus.publishEvent("events.a", { n: 1 }, { msgId: "1" });
    await bus.publishEvent("other.b", { n: 0 }, { msgId: "0" });
    await bus.publishEvent("events.b", { n: 2 }, { msgId: "2" });
    const first = await bus.consume("addon-delivery", "events.>", (msg) => void handled.push(msg));
    await vi.waitFor(() => expect(handled).toHaveLength(2));
    await first.stop();
    expect(handled.map((m) => [m.seq, m.subject, m.data, m.msgId, m.deliveryCount])).toEqual([
      [1, "events.a", { n: 1 }, "1", 1],
      [3, "events.b", { n: 2 }, "2", 1],
    ]);

    await bus.publishEvent("events.c", { n: 3 }, { msgId: "3" });
    await flush();
    expect(handled).toHaveLength(2);
    const second = await bus.consume("addon-delivery", "events.>", (msg) => void handled.push(msg));
    await vi.waitFor(() => expect(handled).toHaveLength(3));
    await flush();
    expect(handled.map((m) => m.msgId)).toEqual(["1", "2", "3"]);
    await second.stop();
  });

  it("gives each durable its own position", async () => {
    bus = createMemoryTransport();
    await bus.publishEvent("events.a", 1, { msgId: "1" });
    const a: unknown[] = [];
    const b: unknown[] = [];
    await bus.consume("a", "events.>", (m) => void a.push(m.data));
    await bus.consume("b", "events.a", (m) => void b.push(m.data));
    await vi.waitFor(() => expect([a, b]).toEqual([[1], [1]]));
  });

  it("redelivers a failed event after the backoff and holds later events to keep order", async () => {
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

  it("takes a backoff function of the attempt number", async () => {
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

  it("dead-letters after maxDeliver attempts and moves on", async () => {
    bus = createMemoryTransport();
    const deadLetters: Array<[string | undefined, number, string]> = [];
    const handled: string[] = [];
    await bus.publishEvent("events.a", "poison", { msgId: "poison" });
    await bus.publishEvent("events.a", "fine", { msgId: "fine" });
    await bus.consume(
      "d",
      "events.a",
      (msg) => {
        handled.push(`${msg.data}#${msg.deliveryCount}`);
        if (msg.data === "poison") throw new Error("cannot handle");
      },
      {
        maxDeliver: 3,
        backoffMs: [0],
        onDeadLetter: (msg, err) => void deadLetters.push([msg.msgId, msg.deliveryCount, (err as Error).message]),
      },
    );
    await vi.waitFor(() => expect(handled).toContain("fine#1"));
    expect(handled).toEqual(["poison#1", "poison#2", "poison#3", "fine#1"]);
    expect(deadLetters).toEqual([["poison", 3, "cannot handle"]]);
  });

  it("redelivers when the dead-letter callback itself fails", async () => {
    bus = createMemoryTransport();
    let deadLetterCalls = 0;
    const recorded: number[] = [];
    await bus.publishEvent("events.a", 1, { msgId: "1" });
    await bus.consume(
      "d",
      "events.a",
      () => {
        throw new Error("always");
      },
      {
        maxDeliver: 1,
        backoffMs: [0],
        onDeadLetter: (msg) => {
          if (++deadLetterCalls === 1) throw new Error("delivery log offline");
          recorded.push(msg.deliveryCount);
        },
      },
    );
    await vi.waitFor(() => expect(recorded).toEqual([2]));
  });

  it("handles several events at once when concurrency allows", async () => {
    bus = createMemoryTransport();
    let inFlight = 0;
    let peak = 0;
    for (let i = 1; i <= 6; i++) await bus.publishEvent("events.a", i, { msgId: String(i) });
    const done: number[] = [];
    await bus.consume(
      "d",
      "events.a",
      async (msg) => {
        peak = Math.max(peak, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight--;
        done.push(msg.data as number);
      },
      { concurrency: 3 },
    );
    await vi.waitFor(() => expect(done).toHaveLength(6));
    expect(peak).toBe(3);
  });

  it("stop waits for the handler in flight and keeps its ack", async () => {
    bus = createMemoryTransport();
    await bus.publishEvent("events.a", 1, { msgId: "1" });
    let release!: () => void;
    const started = vi.fn();
    const consumer = await bus.consume("d", "events.a", () => {
      started();
      return new Promise<void>((resolve) => (release = resolve));
    });
    await vi.waitFor(() => expect(started).toHaveBeenCalled());
    let stopped = false;
    const stopping = consumer.stop().then(() => (stopped = true));
    await flush();
    expect(stopped).toBe(false);
    release();
    await stopping;
    const again = vi.fn();
    await bus.consume("d", "events.a", again);
    await flush();
    expect(again).not.toHaveBeenCalled();
  });

  it("rejects bad consumer setups", async () => {
    bus = createMemoryTransport();
    await bus.consume("d", "events.a", () => {});
    await expect(bus.consume("d", "events.a", () => {})).rejects.toThrow(/already has an active consumer/);
    await expect(bus.consume("d", "events.b", () => {})).rejects.toThrow(/filters events.a/);
    await expect(bus.consume("e", "events.a", () => {}, { maxDeliver: 0 })).rejects.toThrow(RangeError);
    await expect(bus.consume("e", "events.a", () => {}, { concurrency: 1.5 })).rejects.toThrow(RangeError);
    await expect(bus.consume("e", "events.a", () => {}, { backoffMs: [-1] })).rejects.toThrow(RangeError);
    await expect(bus.consume("", "events.a", () => {})).rejects.toThrow(TypeError);
  });

  it("refuses work once closed", async () => {
    bus = createMemoryTransport();
    await bus.close();
    expect(() => bus.publish("a", 1)).toThrow(/closed/);
    await expect(bus.publishEvent("a", 1, { msgId: "1" })).rejects.toThrow(/closed/);
  });
});
