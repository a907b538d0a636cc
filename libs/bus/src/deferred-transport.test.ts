import { describe, expect, it, vi } from "vitest";
import { BusRequestError, type EventMessage, type Transport } from "./bus.js";
import { deferredTransport } from "./deferred-transport.js";
import { createMemoryTransport } from "./memory-bus.js";

const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn(), debug: vi.fn() };

/** A broker that refuses connections until `reachable()` is called. */
function brokerLater() {
  const broker = createMemoryTransport({ streamSubjects: ["events.>"] });
  let up = false;
  let opened: (transport: Transport) => void = () => {};
  const open = vi.fn(async () => {
    if (!up) throw new Error("CONNECTION_REFUSED");
    opened(broker);
    return broker;
  });
  return {
    broker,
    open,
    opened: new Promise<Transport>((resolve) => (opened = resolve)),
    reachable: () => void (up = true),
  };
}

describe("a transport whose broker is not reachable yet", () => {
  it("behaves as during an outage, then sets up everything given meanwhile once the broker is reached", async () => {
    const { broker, open, opened, reachable } = brokerLater();
    const bus = deferredTransport(open, logger, { retryDelayMs: () => 5 });

    const notices: unknown[] = [];
    bus.subscribe("snapshot.updated.*", (payload) => void notices.push(payload));
    bus.reply("tokens.get", () => ({ tokens: 3 }));
    const events: EventMessage[] = [];
    const consumer = await bus.consume("durable", "events.>", (msg) => void events.push(msg));
    const reconnected = vi.fn();
    bus.onReconnect(reconnected);

    await expect(bus.ping()).rejects.toThrow(/NATS unreachable since .*CONNECTION_REFUSED/);
    await expect(bus.request("tokens.get", {})).rejects.toBeInstanceOf(BusRequestError);
    await expect(bus.publishEvent("events.a", {}, { msgId: "1" })).rejects.toThrow(/not published/);
    expect(() => bus.publish("snapshot.updated.development", { lost: true })).not.toThrow();
    await vi.waitFor(() => expect(open.mock.calls.length).toBeGreaterThan(1));

    reachable();
    await opened;
    // Whatever was announced before was missed: every reconnect listener hears of the connection once.
    await vi.waitFor(() => expect(reconnected).toHaveBeenCalledTimes(1));
    await expect(bus.ping()).resolves.toBeUndefined();
    broker.publish("snapshot.updated.development", { revision: 2 });
    await broker.publishEvent("events.a", { n: 1 }, { msgId: "e1" });
    await vi.waitFor(() => expect(notices).toEqual([{ revision: 2 }]));
    await vi.waitFor(() => expect(events.map((e) => e.data)).toEqual([{ n: 1 }]));
    expect(await bus.request("tokens.get", {})).toEqual({ tokens: 3 });

    await consumer.stop();
    await bus.close();
  });

  it("sets up nothing that was cancelled before the broker was reached, and stops trying once closed", async () => {
    const { open, opened, reachable, broker } = brokerLater();
    const bus = deferredTransport(open, logger, { retryDelayMs: () => 5 });
    const heard = vi.fn();
    bus.subscribe("a", heard).unsubscribe();
    const reconnected = vi.fn();
    bus.onReconnect(reconnected).unsubscribe();
    reachable();
    await opened;
    broker.publish("a", {});
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(heard).not.toHaveBeenCalled();
    expect(reconnected).not.toHaveBeenCalled();
    await bus.close();

    const never = deferredTransport(async () => Promise.reject(new Error("down")), logger, { retryDelayMs: () => 5 });
    await never.close();
    await expect(never.ping()).rejects.toThrow(/closed/);
  });
});
