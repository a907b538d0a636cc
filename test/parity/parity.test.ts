import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareAnswers, compareValues, type Difference, type ScenarioRun, runScenario } from "./compare.js";
import { describeDifferences, judge, readAllowedDifferences, type AllowedDifference } from "./differences.js";
import { resultMarkdown, writeResult, type CategoryResult } from "./report.js";
import { parityProjects, scenario, scenarioFlags } from "./scenario.js";
import { clientFeatures, compareFrontend, compareUnleashClient, parityContexts, untilServed } from "./sdk-answers.js";
import { startParityServers, type ParityServers } from "./servers.js";

/**
 * `npm run test:parity`: the same scripted admin calls to unleash-server 8.2.0 and to Vexil, then
 * the same questions from the SDKs' side. Every difference must be listed, with its reason, in
 * DIFFERENCES.md, and every listed one must still occur. The result goes into README.md.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const allowedList: AllowedDifference[] = readAllowedDifferences(path.join(here, "DIFFERENCES.md"));
const contexts = parityContexts(200);
const archivedFlags = scenario
  .filter((s) => s.method === "DELETE" && /\/features\/[^/]+$/.test(s.path))
  .map((s) => s.path.split("/").pop()!);

let servers: ParityServers;
let runs: ScenarioRun[];
const results: CategoryResult[] = [];

beforeAll(async () => {
  servers = await startParityServers();
  for (const project of parityProjects) await Promise.all(servers.targets.map((target) => target.createProject(project)));
  runs = await Promise.all(servers.targets.map((target) => runScenario(target, scenario)));
  const live = scenarioFlags.filter((name) => !archivedFlags.includes(name));
  await Promise.all(servers.targets.map((target) => untilServed(target, live, contexts[0]!)));
}, 600_000);

afterAll(async () => {
  if (results.length > 0) writeResult(path.join(here, "README.md"), resultMarkdown(results, allowedList, new Date()));
  await servers?.stop();
});

/** Judges one category's differences against the list, keeps the result and fails on unexplained ones. */
function settle(category: string, compared: number, differences: Difference[]): void {
  const judgement = judge(allowedList, differences);
  results.push({ category, compared, judgement });
  expect(judgement.unexplained.length, `unexplained differences:\n${describeDifferences(judgement.unexplained)}`).toBe(0);
}

describe("the scripted admin calls", () => {
  it("get the same statuses and error names", () => {
    const differences = scenario.flatMap((step, i) => {
      const [unleash, vexil] = [runs[0]!.answers[i]!, runs[1]!.answers[i]!];
      return compareAnswers(step.label, unleash, vexil).filter((d) => d.kind === "status" || d.kind === "error-name");
    });
    settle("Statuses and error names (admin calls)", scenario.length, differences);
  });

  it("get bodies of the same shape", () => {
    let compared = 0;
    const differences = scenario.flatMap((step, i) => {
      const [unleash, vexil] = [runs[0]!.answers[i]!, runs[1]!.answers[i]!];
      if (unleash.status !== vexil.status || unleash.status >= 400) return [];
      compared++;
      return compareAnswers(step.label, unleash, vexil);
    });
    settle("Body shapes (successful admin calls)", compared, differences);
  });
});

describe("the SDK answers for the same flags", () => {
  it("are the same from /api/client/features, /api/frontend and unleash-client", { timeout: 300_000 }, async () => {
    const segmentNames = (run: ScenarioRun) =>
      new Map([...run.captured].filter(([name]) => name.endsWith("Segment")).map(([name, value]) => [value, name]));
    const [unleashFeatures, vexilFeatures] = await Promise.all(servers.targets.map((t, i) => clientFeatures(t, segmentNames(runs[i]!))));
    const differences = compareValues(
      "client features",
      Object.fromEntries(unleashFeatures!),
      Object.fromEntries(vexilFeatures!),
      "$.features",
    );
    let compared = new Set([...unleashFeatures!.keys(), ...vexilFeatures!.keys()]).size;

    const frontend = await compareFrontend(servers.targets, contexts);
    const sdk = await compareUnleashClient(servers.targets, scenarioFlags, contexts);
    compared += frontend.compared + sdk.compared;
    settle(`SDK answers (client features; frontend POST and GET and unleash-client for ${contexts.length} contexts)`, compared, [
      ...differences,
      ...frontend.differences,
      ...sdk.differences,
    ]);
  });
});

describe("DIFFERENCES.md", () => {
  it("lists only differences that still occur", () => {
    const seen = new Set(results.flatMap((r) => [...r.judgement.allowed].filter(([, list]) => list.length > 0).map(([id]) => id)));
    const stale = allowedList.filter((row) => !seen.has(row.id));
    expect(
      stale.map((row) => `${row.id}: ${row.reason}`),
      "listed differences that no longer occur",
    ).toEqual([]);
  });
});
