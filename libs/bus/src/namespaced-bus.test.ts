import { describe, expect, it } from "vitest";
import { createMemoryBus } from "./memory-bus.js";
import { namespacedBus } from "./namespaced-bus.js";

describe("namespacedBus", () => {
  it("keeps installations apart on one server and hides the namespace from handlers", async () => {
    const server = createMemoryBus();
    const a = namespacedBus(server, "a");
    const b = namespacedBus(server, "b");
    const heardByA: string[] = [];
    const heardByB: string[] = [];
    a.subscribe("tokens.>", (_p, subject) => void heardByA.push(subject));
    b.subscribe("tokens.>", (_p, subject) => void heardByB.push(subject));
    a.publish("tokens.changed", {});
    await new Promise((r) => setTimeout(r, 10));
    expect(heardByA).toEqual(["tokens.changed"]);
    expect(heardByB).toEqual([]);
  });

  it("answers requests only within its namespace", async () => {
    const server = createMemoryBus();
    const a = namespacedBus(server, "a");
    const b = namespacedBus(server, "b");
    a.reply("addons.list", () => ["from a"]);
    expect(await a.request("addons.list", {})).toEqual(["from a"]);
    await expect(b.request("addons.list", {}, { timeoutMs: 50 })).rejects.toMatchObject({ name: "BusRequestError" });
  });

  it("publishes and consumes durable events under the namespace", async () => {
    const server = createMemoryBus({ streamSubjects: ["a.events.>"] });
    const a = namespacedBus(server, "a");
    const seen: string[] = [];
    const consumer = await a.consume("test", "events.>", (msg) => void seen.push(msg.subject));
    await a.publishEvent("events.feature-created", { id: 1 }, { msgId: "1" });
    await new Promise((r) => setTimeout(r, 20));
    await consumer.stop();
    expect(seen).toEqual(["events.feature-created"]);
  });
});
