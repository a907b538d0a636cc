import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareValues, runScenario, type Difference } from "./compare.js";
import { describeDifferences } from "./differences.js";
import { parityProjects, scenario } from "./scenario.js";
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
 * The segments of `from`, and the strategy definitions `to` lacks (Unleash 8 no longer defines
 * `userWithId`, which its SDKs still evaluate), created in `to` under the same names.
 */
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
    if (known.has(strategy.name)) continue;
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

async function sdkDifferences(servers: ParityServers, flags: string[]): Promise<Difference[]> {
  const [unleashFeatures, vexilFeatures] = await Promise.all(
    servers.targets.map(async (target) => clientFeatures(target, await segmentNames(target))),
  );
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
    await copyPrerequisites(servers.vexil, servers.unleash);
    flags = await moveProjects(servers.vexil, servers.unleash, await unleashImportToken(servers.unleash));
    await Promise.all(servers.targets.map((target) => untilServed(target, flags, contexts[0]!)));
  }, 600_000);

  afterAll(async () => {
    await servers?.stop();
  });

  it("gives the same SDK answers after importing Vexil's export", { timeout: 300_000 }, async () => {
    expect(flags.length).toBeGreaterThan(5);
    const differences = await sdkDifferences(servers, flags);
    expect(differences, describeDifferences(differences)).toEqual([]);
  });
});
