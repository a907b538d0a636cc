import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StoreEngine } from "@vexil/store";
import { tempEngine, type TempEngine } from "@vexil/store/testing";
import { UsageService } from "./usage-service.js";
import { createUsageStore } from "./usage-store.js";

let temp: TempEngine;
let engine: StoreEngine;
let now = new Date("2026-03-04T10:20:00.000Z");

beforeEach(async () => {
  temp = await tempEngine("usage");
  engine = temp.engine;
});
afterEach(async () => {
  await temp.remove();
});

const report = (batchId: string, hour: string, appName: string, yes: number, variants: Record<string, number> = {}) => ({
  batchId,
  environment: "development",
  counts: [{ feature: "checkout", appName, hour, yes, no: 1, variants }],
});

describe("UsageService", () => {
  it("adds reports into hourly counts, counts a repeated batch once and keeps variant names with dots", async () => {
    const usage = new UsageService({ usage: await createUsageStore(engine), clock: () => now });
    const reports = [
      report("b1", "2026-03-04T10:00:00.000Z", "shop", 3, { "v1.red": 2 }),
      report("b2", "2026-03-04T10:00:00.000Z", "shop", 2, { "v1.red": 1, $blue: 1 }),
      report("b1", "2026-03-04T10:00:00.000Z", "shop", 3, { "v1.red": 2 }),
      report("b3", "2026-03-04T09:00:00.000Z", "app", 4),
    ];
    expect(await Promise.all(reports.map((r) => usage.record(r)))).toEqual([true, true, false, true]);
    const { data } = await usage.raw("checkout", 2);
    expect(data).toEqual([
      expect.objectContaining({ appName: "app", timestamp: "2026-03-04T09:00:00.000Z", yes: 4, no: 1, variants: {} }),
      expect.objectContaining({
        appName: "shop",
        timestamp: "2026-03-04T10:00:00.000Z",
        yes: 5,
        no: 2,
        variants: { "v1.red": 3, $blue: 1 },
      }),
    ]);
    expect((await usage.raw("checkout", 1)).data).toHaveLength(1);
    expect(await usage.summary("checkout")).toEqual({
      version: 1,
      maturity: "stable",
      featureName: "checkout",
      lastHourUsage: [{ environment: "development", timestamp: "2026-03-04T10:00:00.000Z", yes: 9, no: 3 }],
      seenApplications: ["app", "shop"],
    });
  });

  it("prunes hours older than the retention", async () => {
    const store = await createUsageStore(engine);
    const usage = new UsageService({ usage: store, clock: () => now });
    await usage.record(report("old", "2026-03-01T10:00:00.000Z", "shop", 1));
    await usage.record(report("new", "2026-03-04T10:00:00.000Z", "shop", 1));
    expect(await store.prune(new Date("2026-03-02T10:00:00.000Z"))).toBe(1);
    now = new Date("2026-03-04T10:30:00.000Z");
    expect((await usage.raw("checkout", 48)).data.map((d) => d.timestamp)).toEqual(["2026-03-04T10:00:00.000Z"]);
  });
});
