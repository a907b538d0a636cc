import { afterEach, describe, expect, it } from "vitest";
import { createMemoryBus, type Bus } from "./index.js";
import { publishTopic, subscribeTopic, type TypedTopic } from "./topic.js";

/** A schema shaped like zod's safeParse, for a payload `{ count: number }`. */
const counted: TypedTopic<{ count: number }> = {
  subject: "test.counted",
  schema: {
    safeParse: (payload: unknown) =>
      typeof payload === "object" && payload !== null && typeof (payload as { count?: unknown }).count === "number"
        ? { success: true, data: { count: (payload as { count: number }).count } }
        : { success: false, error: { issues: ["count must be a number"] } },
  },
};

describe("typed topics", () => {
  let bus: Bus;
  afterEach(() => bus.close());

  it("hands the handler validated payloads and the malformed ones to onMalformed", async () => {
    bus = createMemoryBus();
    const received: number[] = [];
    const malformed: unknown[] = [];
    const subscription = subscribeTopic(
      bus,
      counted,
      (payload) => void received.push(payload.count),
      (issues) => malformed.push(...issues),
    );
    publishTopic(bus, counted, { count: 3 });
    bus.publish(counted.subject, { count: "three" });
    await expect.poll(() => received.length + malformed.length).toBe(2);
    expect(received).toEqual([3]);
    expect(malformed).toEqual(["count must be a number"]);
    subscription.unsubscribe();
  });
});
