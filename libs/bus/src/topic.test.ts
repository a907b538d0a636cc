import { afterEach, describe, expect, it, vi } from "vitest";
import { createMemoryTransport } from "./memory-bus.js";
import { counted, eventOn, noticeOn, requestOn } from "./topic.fixture.js";
import { topicBus, type Bus } from "./topic.js";

const counter = noticeOn("test.counted", counted);
const logger = () => ({ info: vi.fn(), warn: vi.fn(), error: vi.fn(), debug: vi.fn() });

describe("typed bus", () => {
  let bus: Bus;
  afterEach(() => bus.close());

  it("hands subscribers validated payloads and logs and skips the malformed ones", async () => {
    const transport = createMemoryTransport();
    const log = logger();
    bus = topicBus(transport, log);
    const received: number[] = [];
    bus.subscribe(counter, (payload) => void received.push(payload.count));
    // A publisher that does not follow the contract reaches the same subject.
    transport.publish(counter.subject, { count: "three" });
    bus.publish(counter, { count: 3 });
    await expect.poll(() => received).toEqual([3]);
    expect(log.warn).toHaveBeenCalledWith({ subject: "test.counted", issues: ["rejected"] }, "ignoring a malformed notice");
  });

  it("validates a request where it is answered and the reply where it arrives", async () => {
    const transport = createMemoryTransport();
    bus = topicBus(transport, logger());
    const double = requestOn("test.double", counted, counted);
    bus.reply(double, ({ count }) => ({ count: count * 2 }));
    await expect(bus.request(double, { count: 4 })).resolves.toEqual({ count: 8 });
    await expect(transport.request(double.subject, { count: "four" })).rejects.toMatchObject({
      name: "BusRequestError",
      code: "remote",
      remoteName: "MalformedPayloadError",
    });

    const broken = requestOn("test.broken", counted, counted);
    transport.reply(broken.subject, () => ({ count: "many" }));
    await expect(bus.request(broken, { count: 1 })).rejects.toMatchObject({ name: "MalformedPayloadError", issues: ["rejected"] });
  });

  it("acks and skips a malformed event, handing the consumer only typed ones", async () => {
    const transport = createMemoryTransport({ streamSubjects: ["test.events.>"] });
    const log = logger();
    bus = topicBus(transport, log);
    const seen: Array<[number, string]> = [];
    const consumer = await bus.consume("typed", eventOn("test.events.>", counted), (msg) => void seen.push([msg.data.count, msg.subject]));
    await transport.publishEvent("test.events.one", { count: null }, { msgId: "bad" });
    await bus.publishEvent(eventOn("test.events.two", counted), { count: 2 }, { msgId: "good" });
    await expect.poll(() => seen).toEqual([[2, "test.events.two"]]);
    await consumer.stop();
    expect(log.warn).toHaveBeenCalledWith(expect.objectContaining({ subject: "test.events.one", seq: 1 }), "skipping a malformed event");
  });
});
