import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareValues, runScenario, type Difference } from "./compare.js";
import { describeDifferences } from "./differences.js";
import { flag, parityProjects, scenario } from "./scenario.js";
import { clientFeatures, compareFrontend, compareUnleashClient, parityContexts, untilServed } from "./sdk-answers.js";
import { startParityServers, type ParityServers, type ParityTarget } from "./servers.js";

/**
 * Moving flags between Unleash 8.2.0 and Vexil with the export/import API: the parity scenario's
 * flags are made on one server only, exported from it project by project, and imported into the
 * other, which must then give the SDKs exactly the same answers. Segments and custom strategies
 * travel as Unleash users move them: created in the target first, then matched by name.
 */
const environment = "development";
const projects = ["default", ...parityProjects];
const contexts = parityContexts(120);

async function json(res: Response, what: string): Promise<any> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${what}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * A flag per strategy kind both servers define, and `userWithId`, which only Vexil still defines
 * and exports as `default` with an `IN userId` constraint. (The gradual rollouts of Unleash 4 are
 * left out: Unleash 8 deletes them on a fresh install and refuses an import naming them.)
 */
const strategyKinds = [
  ...flag("default", "kind-default", [{ name: "default" }]),
  ...flag("default", "kind-flexible", [{ name: "flexibleRollout", parameters: { rollout: "40", stickiness: "userId", groupId: "kinds" } }]),
  ...flag("default", "kind-user-ids", [{ name: "userWithId", parameters: { userIds: "user-1, user-7,user-12" } }]),
  ...flag("default", "kind-user-ids-constrained", [
    {
      name: "userWithId",
      title: "Beta testers",
      parameters: { userIds: "user-3,user-4,user-5,user-9" },
      constraints: [{ contextName: "plan", operator: "IN", values: ["pro"] }],
      variants: [{ name: "blue", weight: 1000, weightType: "variable", stickiness: "default" }],
    },
  ]),
  ...flag("default", "kind-user-ids-none", [{ name: "userWithId", parameters: { userIds: "" } }]),
  ...flag("default", "kind-remote-address", [{ name: "remoteAddress", parameters: { IPs: "10.0.0.1, 172.16.0.3" } }]),
  // No host of this name: Unleash's frontend API matches the server's own host, Vexil's the context's `hostname`.
  ...flag("default", "kind-hostname", [{ name: "applicationHostname", parameters: { hostNames: "no-such-host.example" } }]),
  {
    label: "define custom strategy",
    method: "POST" as const,
    path: "/api/admin/strategies",
    body: { name: "kind-custom", parameters: [] },
  },
  ...flag("default", "kind-custom", [{ name: "kind-custom", parameters: {} }]),
];

/** The segments of `from`, and the custom strategy definitions `to` lacks, created in `to` under the same names. */
async function copyPrerequisites(from: ParityTarget, to: ParityTarget): Promise<void> {
  for (const segment of (await json(await from.call("/api/admin/segments"), "segments")).segments) {
    const { name, description, project, constraints } = segment;
    await json(
      await to.call("/api/admin/segments", { method: "POST", body: { name, description, project, constraints } }),
      `segment ${name}`,
    );
  }
  const known = new Set((await json(await to.call("/api/admin/strategies"), "strategies")).strategies.map((s: { name: string }) => s.name));
  for (const strategy of (await json(await from.call("/api/admin/strategies"), "strategies")).strategies) {
    if (known.has(strategy.name) || !strategy.editable) continue;
    const { name, description, parameters } = strategy;
    await json(await to.call("/api/admin/strategies", { method: "POST", body: { name, description, parameters } }), `strategy ${name}`);
  }
}

/** Exports each project's development flags from `from` and imports them into `to` (after a clean validation). */
async function moveProjects(from: ParityTarget, to: ParityTarget, importToken?: string): Promise<string[]> {
  const moved: string[] = [];
  for (const project of projects) {
    const data = await json(
      await from.call("/api/admin/features-batch/export", { method: "POST", body: { environment, project } }),
      `export ${project}`,
    );
    if (data.features.length === 0) continue;
    const body = { project, environment, data };
    const validation = await json(await to.call("/api/admin/features-batch/validate", { method: "POST", body }), `validate ${project}`);
    expect(validation.errors, `${to.name} refuses ${project}'s export`).toEqual([]);
    const res = importToken
      ? await fetch(`${to.url}/api/admin/features-batch/import`, {
          method: "POST",
          headers: { authorization: importToken, "content-type": "application/json" },
          body: JSON.stringify(body),
        })
      : await to.call("/api/admin/features-batch/import", { method: "POST", body });
    await json(res, `import ${project} into ${to.name}`);
    moved.push(...data.features.map((f: { name: string }) => f.name));
  }
  return moved;
}

/** Segment ids differ between the two servers: strategies are compared by segment name. */
async function segmentNames(target: ParityTarget): Promise<Map<unknown, string>> {
  const { segments } = await json(await target.call("/api/admin/segments"), "segments");
  return new Map(segments.map((s: { id: number; name: string }) => [s.id, s.name]));
}

/**
 * What a `userWithId` strategy of Vexil's becomes in Unleash after the export: `default` with the
 * ids as an `IN userId` constraint (titled so; the client API has no titles). Vexil's client answer is compared in that form.
 */
function asExportedToUnleash8(feature: Record<string, unknown>): Record<string, unknown> {
  const strategies = (feature.strategies as Array<Record<string, any>> | undefined)?.map((strategy) => {
    if (strategy.name !== "userWithId") return strategy;
    const { userIds, ...parameters } = strategy.parameters as Record<string, string>;
    const values = userIds!.split(",").flatMap((id) => (id.trim() ? [id.trim()] : []));
    const userId = (operator: string, ids: string[]) => ({
      contextName: "userId",
      operator,
      values: ids,
      inverted: false,
      caseInsensitive: false,
    });
    const matchingIds = values.length > 0 ? [userId("IN", values)] : [userId("IN", ["-"]), userId("NOT_IN", ["-"])];
    return {
      ...strategy,
      name: "default",
      parameters,
      constraints: [...strategy.constraints, ...matchingIds],
    };
  });
  return { ...feature, strategies };
}

async function sdkDifferences(servers: ParityServers, flags: string[], vexilExported = false): Promise<Difference[]> {
  const [unleashFeatures, vexilServed] = await Promise.all(
    servers.targets.map(async (target) => clientFeatures(target, await segmentNames(target))),
  );
  const vexilFeatures = vexilExported
    ? new Map([...vexilServed!].map(([name, feature]) => [name, asExportedToUnleash8(feature)] as const))
    : vexilServed;
  const frontend = await compareFrontend(servers.targets, contexts);
  const sdk = await compareUnleashClient(servers.targets, flags, contexts);
  expect(frontend.compared + sdk.compared).toBeGreaterThan(contexts.length);
  return [
    ...compareValues("client features", Object.fromEntries(unleashFeatures!), Object.fromEntries(vexilFeatures!), "$.features"),
    ...frontend.differences,
    ...sdk.differences,
  ];
}

/** Unleash refuses admin tokens on /import: a personal access token of its initial admin user. */
async function unleashImportToken(unleash: ParityTarget): Promise<string> {
  const login = await fetch(`${unleash.url}/auth/simple/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password: "unleash4all" }),
  });
  await json(login, "sign in to Unleash");
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const pat = await fetch(`${unleash.url}/api/admin/user/tokens`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json" },
    body: JSON.stringify({ description: "import", expiresAt: "2099-01-01T00:00:00.000Z" }),
  });
  return (await json(pat, "personal access token")).secret;
}

describe("Unleash 8.2.0 → Vexil", () => {
  let servers: ParityServers;
  let flags: string[];

  beforeAll(async () => {
    servers = await startParityServers();
    for (const project of parityProjects) await Promise.all(servers.targets.map((target) => target.createProject(project)));
    await runScenario(servers.unleash, scenario);
    await copyPrerequisites(servers.unleash, servers.vexil);
    flags = await moveProjects(servers.unleash, servers.vexil);
    await Promise.all(servers.targets.map((target) => untilServed(target, flags, contexts[0]!)));
  }, 600_000);

  afterAll(async () => {
    await servers?.stop();
  });

  it("gives the same SDK answers after importing Unleash's export", { timeout: 300_000 }, async () => {
    expect(flags.length).toBeGreaterThan(5);
    const differences = await sdkDifferences(servers, flags);
    expect(differences, describeDifferences(differences)).toEqual([]);
  });
});

describe("Vexil → Unleash 8.2.0", () => {
  let servers: ParityServers;
  let flags: string[];

  beforeAll(async () => {
    servers = await startParityServers();
    for (const project of parityProjects) await Promise.all(servers.targets.map((target) => target.createProject(project)));
    await runScenario(servers.vexil, scenario);
    const kinds = await runScenario(servers.vexil, strategyKinds);
    expect(
      kinds.answers.flatMap((answer, i) => (answer.status < 300 ? [] : [`${strategyKinds[i]!.label}: ${answer.status}`])),
      "every strategy kind is set up in Vexil",
    ).toEqual([]);
    await copyPrerequisites(servers.vexil, servers.unleash);
    flags = await moveProjects(servers.vexil, servers.unleash, await unleashImportToken(servers.unleash));
    await Promise.all(servers.targets.map((target) => untilServed(target, flags, contexts[0]!)));
  }, 600_000);

  afterAll(async () => {
    await servers?.stop();
  });

  it("gives the same SDK answers after importing Vexil's export", { timeout: 300_000 }, async () => {
    expect(flags).toEqual(
      expect.arrayContaining(strategyKinds.flatMap((step) => (step.label.startsWith("create flag ") ? [step.label.slice(12)] : []))),
    );
    const kept = await json(
      await servers.unleash.call("/api/admin/projects/default/features/kind-user-ids/environments/development/strategies"),
      "strategies of kind-user-ids in Unleash",
    );
    expect(kept.map((s: { name: string; title: string }) => [s.name, s.title])).toEqual([
      ["default", "userWithId, exported as default with an IN userId constraint"],
    ]);
    const differences = await sdkDifferences(servers, flags, true);
    expect(differences, describeDifferences(differences)).toEqual([]);
  });
});
