import { describe, expect, it } from "vitest";
import { failureLog } from "./failure-log.js";

function recording() {
  const lines: Array<[level: string, fields: Record<string, unknown>, msg: string]> = [];
  const write = (level: string) => (fields: object, msg: string) => void lines.push([level, fields as Record<string, unknown>, msg]);
  return { lines, logger: { error: write("error"), warn: write("warn"), info: write("info") } };
}

describe("failureLog", () => {
  const messages = { failing: "pass failed", stillFailing: "passes still failing", recovered: "passing again", everyMs: 60_000 };

  it("logs a run of failures once at error, then once per interval with the count, and its end", () => {
    const { lines, logger } = recording();
    let now = 1_000_000;
    const log = failureLog(logger, messages, () => now);
    const err = new Error("Redis unreachable");
    // Twice a second for two and a half minutes.
    for (let i = 0; i < 300; i++, now += 500) log.failed(err, { published: 0 });
    expect(log.failures).toBe(300);
    log.succeeded();
    log.succeeded();
    expect(lines.map(([level, , msg]) => [level, msg])).toEqual([
      ["error", "pass failed"],
      ["warn", "passes still failing"],
      ["warn", "passes still failing"],
      ["info", "passing again"],
    ]);
    expect(lines[0]![1]).toEqual({ published: 0, err });
    expect(lines[1]![1]).toMatchObject({ failures: 121, since: new Date(1_000_000), reason: "Redis unreachable", published: 0 });
    expect(lines[3]![1]).toEqual({ failures: 300, seconds: 150 });
    expect(log.failures).toBe(0);
  });

  it("starts a new run after a success", () => {
    const { lines, logger } = recording();
    const log = failureLog(logger, messages, () => 0);
    log.failed(new Error("a"));
    log.succeeded();
    log.failed(new Error("b"));
    expect(lines.map(([level]) => level)).toEqual(["error", "info", "error"]);
  });
});
