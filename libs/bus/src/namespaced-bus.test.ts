import { describe, expect, it } from "vitest";
import { createMemoryBus } from "./memory-bus.js";
import { namespacedBus } from "./namespaced-bus.js";
import { anything, eventOn, noticeOn, requestOn } from "./topic.fixture.js";

describe("namespacedBus", () => {
  it("keeps installations apart on one server and hides the namespace from handlers", async () => {
    const server = createMemoryBus();
    const a = namespacedBus(server, "a");
    const b = namespacedBus(server, "b");
    const heardByA: string[] = [];
    const heardByB: string[] = [];
    a.subscribe(noticeOn("tokens.>", anything), (_p, subject) => void heardByA.push(subject));
    b.subscribe(noticeOn("tokens.>", anything), (_p, subject) => void heardByB.push(subject));
    a.publish(noticeOn("tokens.changed", anything), {});
    await new Promise((r) => setTimeout(r, 10));
    expect(heardByA).toEqual(["tokens.changed"]);
    expect(heardByB).toEqual([]);
  });

  it("answers requests only within its namespace", async () => {
    const server = createMemoryBus();
    const a = namespacedBus(server, "a");
    const b = namespacedBus(server, "b");
    const list = requestOn("addons.list", anything, anything);
    a.reply(list, () => ["from a"]);
    expect(await a.request(list, {})).toEqual(["from a"]);
    await expect(b.request(list, {}, { timeoutMs: 50 })).rejects.toMatchObject({ name: "BusRequestError" });
  });

  it("publishes and consumes durable events under the namespace", async () => {
    const server = createMemoryBus({ streamSubjects: ["a.events.>"] });
    const a = namespacedBus(server, "a");
    const seen: string[] = [];
    const consumer = await a.consume("test", eventOn("events.>", anything), (msg) => void seen.push(msg.subject));
    await a.publishEvent(eventOn("events.feature-created", anything), { id: 1 }, { msgId: "1" });
    await new Promise((r) => setTimeout(r, 20));
    await consumer.stop();
    expect(seen).toEqual(["events.feature-created"]);
  });
});
