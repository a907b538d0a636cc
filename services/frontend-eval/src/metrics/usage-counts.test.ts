import { describe, expect, it } from "vitest";
import { createMemoryBus } from "@vexil/bus";
import { topics, type UsageReport } from "@vexil/contracts";
import { createLogger } from "@vexil/logger";
import { UsageCounts } from "./usage-counts.js";

const logger = createLogger({ level: "silent" });
const at = new Date("2026-03-04T10:20:00.000Z");
const metrics = (appName: string, yes: number, no: number, variants: Record<string, number> = {}) => ({
  appName,
  bucket: { start: "2026-03-04T10:05:00.000Z", stop: "2026-03-04T10:06:00.000Z", toggles: { checkout: { yes, no, variants } } },
});

describe("UsageCounts", () => {
  it("adds up posts per application, flag and hour and reports one batch per environment", async () => {
    const bus = createMemoryBus();
    const reports: UsageReport[] = [];
    bus.reply(topics.usageReport, (report) => {
      reports.push(report);
      return { stored: true };
    });
    const usage = new UsageCounts({ bus, logger, clock: () => at, flushIntervalMs: 60_000 });
    usage.add("development", metrics("shop", 3, 1, { red: 2 }));
    usage.add("development", metrics("shop", 2, 0, { red: 1, blue: 1 }));
    usage.add("development", metrics("admin-app", 0, 0));
    await usage.stop();
    expect(reports).toHaveLength(1);
    expect(reports[0]!.counts).toEqual([
      { feature: "checkout", appName: "shop", hour: "2026-03-04T10:00:00.000Z", yes: 5, no: 1, variants: { red: 3, blue: 1 } },
    ]);
  });

  it("keeps a report admin did not take and sends it again with the same batch id", async () => {
    const bus = createMemoryBus();
    const usage = new UsageCounts({ bus, logger, clock: () => at, flushIntervalMs: 60_000 });
    usage.add("production", metrics("shop", 1, 0));
    await usage.flush(); // nobody answers yet
    const reports: UsageReport[] = [];
    bus.reply(topics.usageReport, (report) => {
      reports.push(report);
      return { stored: true };
    });
    usage.add("production", metrics("shop", 1, 0));
    await usage.stop();
    expect(reports.map((r) => r.counts[0]!.yes)).toEqual([1, 1]);
    expect(new Set(reports.map((r) => r.batchId)).size).toBe(2);
  });
});
