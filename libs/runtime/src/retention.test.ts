import { describe, expect, it } from "vitest";
import { createLogger } from "@vexil/logger";
import { startRetention } from "./retention.js";

const logger = createLogger({ service: "test", level: "silent" });
const now = new Date("2030-01-31T00:00:00.000Z");
/** Lets every pending promise callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("retention", () => {
  it("prunes what is older than the retention at start, and keeps everything with 0 days", async () => {
    const cutoffs: Date[] = [];
    const kept = startRetention({ what: "things", days: 30, prune: async (before) => (cutoffs.push(before), 0), clock: () => now, logger });
    await kept.stop();
    expect(cutoffs).toEqual([new Date("2030-01-01T00:00:00.000Z")]);

    const forever = startRetention({
      what: "things",
      days: 0,
      prune: async (before) => (cutoffs.push(before), 0),
      clock: () => now,
      logger,
    });
    expect(await forever.prune()).toBe(0);
    await forever.stop();
    expect(cutoffs).toHaveLength(1);
  });

  it("stops only once a run under way has finished, so the store can close after it", async () => {
    let finish: () => void = () => {};
    const retention = startRetention({
      what: "things",
      days: 1,
      prune: () => new Promise<number>((resolve) => (finish = () => resolve(3))),
      clock: () => now,
      logger,
    });
    let stopped = false;
    const stopping = retention.stop().then(() => (stopped = true));
    await settle();
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(stopped).toBe(true);
  });

  it("logs a failed run and stops all the same", async () => {
    const retention = startRetention({
      what: "things",
      days: 1,
      prune: async () => Promise.reject(new Error("store away")),
      clock: () => now,
      logger,
    });
    await expect(retention.stop()).resolves.toBeUndefined();
  });
});
