import { describe, expect, it } from "vitest";
import { reporters, usageSentence, usageSeries } from "./usage.js";

const at = (hour: number) => new Date(Date.UTC(2026, 10, 28, hour, 0, 0)).toISOString();
const data = [
  { environment: "development", appName: "shop", timestamp: at(8), yes: 300, no: 100 },
  { environment: "development", appName: "admin", timestamp: at(8), yes: 140, no: 40 },
  { environment: "development", appName: "shop", timestamp: at(10), yes: 5, no: 1 },
  { environment: "production", appName: "shop", timestamp: at(9), yes: 7, no: 0 },
];

describe("usage", () => {
  it("sums an environment's applications per hour and fills the hours nobody reported with zero", () => {
    const series = usageSeries(data, "development", undefined);
    expect(series.hours.map((h) => new Date(h * 1000).getUTCHours())).toEqual([8, 9, 10]);
    expect(series.yes).toEqual([440, 0, 5]);
    expect(series.no).toEqual([140, 0, 1]);
  });

  it("shows one application alone when asked", () => {
    expect(usageSeries(data, "development", "admin").yes).toEqual([140]);
    expect(usageSeries(data, "staging", undefined)).toEqual({ hours: [], yes: [], no: [] });
  });

  it("says an hour as people read it, and lists who reported", () => {
    expect(usageSentence(440, 140, "development")).toBe("440 yes / 140 no in development");
    expect(reporters(data)).toEqual({ environments: ["development", "production"], applications: ["admin", "shop"] });
  });
});
