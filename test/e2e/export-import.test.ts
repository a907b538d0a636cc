import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flagAdmin, type AdminCall } from "../src/flag-admin.js";
import { clientFeatures, frontendAnswers, sdkAnswers, sdkContexts } from "../src/sdk-answers.js";
import { sdkPool } from "../src/sdks.js";
import { waitFor } from "../src/servers.js";
import { tokenSecret } from "../src/tokens.js";
import { startVexilProcess, type VexilProcess } from "../src/vexil-process.js";

/**
 * Export/import between two installations through their public API: flags with strategies,
 * constraints, a segment, strategy and environment variants, tags, a custom context field and a
 * dependency are exported from one Vexil (in `default` and in a project made at run time) and
 * imported into a fresh one, which must then answer the SDKs exactly as the first does.
 */
const tokens = {
  admin: tokenSecret("*", "*"),
  client: tokenSecret("*", "development"),
  frontend: tokenSecret("*", "development"),
};
const project = `moved-${randomUUID().slice(0, 6)}`;
const environment = "development";
const segmentConstraints = [{ contextName: "userId", operator: "IN", values: ["u1", "u2", "u3", "u4"] }];
const contexts = sdkContexts(40, "tier", ["gold", "silver", "silver"]);

let source: VexilProcess;
let target: VexilProcess;
const sdks = sdkPool();

const caller =
  (vexil: () => VexilProcess, token = tokens.admin): AdminCall =>
  (path, init = {}) =>
    fetch(`${vexil().url}${path}`, {
      method: init.method ?? "GET",
      headers: { authorization: token, ...(init.body !== undefined ? { "content-type": "application/json" } : {}) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
const onSource = caller(() => source);
const onTarget = caller(() => target);

async function json(res: Response, status = 200): Promise<any> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return text ? JSON.parse(text) : undefined;
}

const startVexil = () =>
  startVexilProcess({
    env: { INIT_ADMIN_API_TOKENS: tokens.admin, INIT_CLIENT_API_TOKENS: tokens.client, INIT_FRONTEND_API_TOKENS: tokens.frontend },
  });

async function buildFlags(call: AdminCall, projectId: string, prefix: string): Promise<void> {
  const admin = flagAdmin(call, projectId);
  const segment = (await json(await call("/api/admin/segments"))).segments.find((s: { name: string }) => s.name === "beta-users");
  await admin.createFeature(`${prefix}-targeted`, { type: "experiment", description: "gold users and the beta segment" });
  await admin.addStrategy(`${prefix}-targeted`, environment, {
    name: "flexibleRollout",
    title: "gold half",
    parameters: { rollout: "50", stickiness: "userId", groupId: `${prefix}-targeted` },
    constraints: [{ contextName: "tier", operator: "IN", values: ["gold"] }],
    variants: [
      { name: "gold-variant", weight: 1000, weightType: "variable", stickiness: "userId", payload: { type: "string", value: "g" } },
    ],
  });
  await admin.addStrategy(`${prefix}-targeted`, environment, { name: "default", segments: [segment.id] });
  await admin.setEnabled(`${prefix}-targeted`, environment, true);

  await admin.createFeature(`${prefix}-variants`, { impressionData: true });
  await admin.addStrategy(`${prefix}-variants`, environment, {
    name: "flexibleRollout",
    parameters: { rollout: "100", stickiness: "default", groupId: "v" },
  });
  await admin.setVariants(`${prefix}-variants`, environment, [
    { name: "blue", weight: 300, weightType: "fix", stickiness: "userId", payload: { type: "json", value: '{"color":"blue"}' } },
    { name: "green", weight: 700, weightType: "variable", stickiness: "userId", overrides: [{ contextName: "userId", values: ["u7"] }] },
  ]);
  await admin.setEnabled(`${prefix}-variants`, environment, true);

  await admin.createFeature(`${prefix}-parent`);
  await admin.addStrategy(`${prefix}-parent`, environment, { name: "userWithId", parameters: { userIds: "u1,u2,u3,u5,u8" } });
  await admin.setEnabled(`${prefix}-parent`, environment, true);
  await admin.createFeature(`${prefix}-child`);
  await admin.addStrategy(`${prefix}-child`, environment, { name: "default" });
  await admin.setEnabled(`${prefix}-child`, environment, true);
  await admin.addDependency(`${prefix}-child`, { feature: `${prefix}-parent` });

  await admin.createFeature(`${prefix}-off`);
  await admin.addStrategy(`${prefix}-off`, environment, { name: "default" });
  await json(await call(`/api/admin/features/${prefix}-targeted/tags`, { method: "POST", body: { type: "team", value: "checkout" } }), 201);
}

async function exportProject(projectId: string): Promise<any> {
  return json(await onSource("/api/admin/features-batch/export", { method: "POST", body: { environment, project: projectId } }));
}

beforeAll(async () => {
  [source, target] = await Promise.all([startVexil(), startVexil()]);
  for (const call of [onSource, onTarget]) {
    await json(await call("/api/admin/projects", { method: "POST", body: { id: project, name: project } }), 201);
    // Segments travel by name, as in Unleash: the target needs its own segment of that name.
    await flagAdmin(call).createSegment("beta-users", segmentConstraints);
  }
  await json(await onSource("/api/admin/tag-types", { method: "POST", body: { name: "team", description: "Owning team" } }), 201);
  await json(
    await onSource("/api/admin/context", {
      method: "POST",
      body: { name: "tier", description: "Pricing tier", stickiness: true, legalValues: [{ value: "gold" }, { value: "silver" }] },
    }),
    201,
  );
  await buildFlags(onSource, "default", "ei");
  await buildFlags(onSource, project, "moved");
}, 240_000);

afterAll(async () => {
  sdks.stopAll();
  await Promise.all([source?.stop(), target?.stop()]);
});

describe("export from one Vexil, import into a fresh one", () => {
  it("exports Unleash's format with everything the flags use", async () => {
    const data = await exportProject("default");
    expect(data.features.map((f: { name: string }) => f.name).sort()).toEqual([
      "ei-child",
      "ei-off",
      "ei-parent",
      "ei-targeted",
      "ei-variants",
    ]);
    expect(data.featureStrategies.filter((s: { featureName: string }) => s.featureName === "ei-targeted")).toHaveLength(2);
    expect(data.segments).toEqual([{ id: expect.any(Number), name: "beta-users" }]);
    expect(data.contextFields.map((f: { name: string }) => f.name)).toContain("tier");
    expect(data.featureTags).toEqual([{ featureName: "ei-targeted", tagType: "team", tagValue: "checkout" }]);
    expect(data.tagTypes.map((t: { name: string }) => t.name)).toEqual(["team"]);
    expect(data.dependencies).toEqual([{ feature: "ei-child", dependencies: [{ feature: "ei-parent", enabled: true, variants: [] }] }]);
    expect(data.featureEnvironments.find((e: { name: string }) => e.name === "ei-variants").variants).toHaveLength(2);
    // Unleash 8 refuses `userWithId` on import: it leaves as the `default` strategy it means, and says so.
    expect(data.featureStrategies.filter((s: { featureName: string }) => s.featureName === "ei-parent")).toEqual([
      expect.objectContaining({
        name: "default",
        title: "userWithId, exported as default with an IN userId constraint",
        parameters: {},
        constraints: [
          { contextName: "userId", operator: "IN", values: ["u1", "u2", "u3", "u5", "u8"], inverted: false, caseInsensitive: false },
        ],
      }),
    ]);
  });

  it("selects flags by tag (`type:value` or the value) and offers the export as a file", async () => {
    for (const tag of ["team:checkout", "checkout"]) {
      const res = await onSource("/api/admin/features-batch/export", { method: "POST", body: { environment, tag, downloadFile: true } });
      expect(res.headers.get("content-disposition")).toBe('attachment; filename="export-development.json"');
      const data = await json(res);
      expect(data.features.map((f: { name: string }) => f.name).sort()).toEqual(["ei-targeted", "moved-targeted"]);
    }
  });

  it("validates, imports, and then answers every SDK exactly as the source does", async () => {
    for (const projectId of ["default", project]) {
      const data = await exportProject(projectId);
      const validation = await json(
        await onTarget("/api/admin/features-batch/validate", { method: "POST", body: { project: projectId, environment, data } }),
      );
      expect(validation).toEqual({ errors: [], warnings: [], permissions: [] });
      await json(await onTarget("/api/admin/features-batch/import", { method: "POST", body: { project: projectId, environment, data } }));
    }
    // The same flags, but for the userWithId strategies, which come back as what they were exported as.
    const withoutUserIdStrategies = (flags: any) => ({
      ...flags,
      features: flags.features.map((f: any) => (f.name.endsWith("-parent") ? { ...f, strategies: f.strategies.length } : f)),
    });
    const flagSet = async (vexil: VexilProcess) =>
      (await clientFeatures(vexil.url, tokens.client, { withoutIds: true })) as { features: any[] };
    const expected = await flagSet(source);
    const same = async () =>
      JSON.stringify(withoutUserIdStrategies(await flagSet(target))) === JSON.stringify(withoutUserIdStrategies(expected));
    expect(await waitFor(same, 15_000)).toBe(true);
    expect(withoutUserIdStrategies(await flagSet(target))).toEqual(withoutUserIdStrategies(expected));
    const parent = (await flagSet(target)).features.find((f: { name: string }) => f.name === "ei-parent");
    expect(parent.strategies).toEqual([
      expect.objectContaining({ name: "default", constraints: [expect.objectContaining({ contextName: "userId", operator: "IN" })] }),
    ]);
    expect(await frontendAnswers(target.url, tokens.frontend, contexts)).toEqual(
      await frontendAnswers(source.url, tokens.frontend, contexts),
    );

    const names = (expected as { features: { name: string }[] }).features.map((f) => f.name);
    const [fromSource, fromTarget] = await Promise.all([
      sdks.serverSdk(source, tokens.client, "polling"),
      sdks.serverSdk(target, tokens.client, "polling"),
    ]);
    const answers = sdkAnswers(fromSource, names, contexts);
    expect(answers.some((a) => (a as { enabled: boolean }).enabled)).toBe(true);
    expect(sdkAnswers(fromTarget, names, contexts)).toEqual(answers);

    const imported = await json(await onTarget(`/api/admin/projects/${project}/features/moved-targeted`));
    expect(imported).toMatchObject({
      type: "experiment",
      description: "gold users and the beta segment",
      tags: [{ type: "team", value: "checkout" }],
    });
    expect((await json(await onTarget("/api/admin/context/tier"))).legalValues).toEqual([{ value: "gold" }, { value: "silver" }]);
  });

  it("imports again over the same flags: strategies replaced, not doubled", async () => {
    const data = await exportProject("default");
    const validation = await json(
      await onTarget("/api/admin/features-batch/validate", { method: "POST", body: { project: "default", environment, data } }),
    );
    expect(validation.errors).toEqual([]);
    expect(validation.warnings[0].affectedItems.sort()).toEqual(["ei-child", "ei-off", "ei-parent", "ei-targeted", "ei-variants"]);
    await json(await onTarget("/api/admin/features-batch/import", { method: "POST", body: { project: "default", environment, data } }));
    const strategies = await json(await onTarget("/api/admin/projects/default/features/ei-targeted/environments/development/strategies"));
    expect(strategies).toHaveLength(2);
  });

  it("refuses bad input with 400 and writes nothing when any part fails", async () => {
    const missing = await json(await onTarget("/api/admin/features-batch/export", { method: "POST", body: { features: [] } }), 400);
    expect(missing).toMatchObject({ name: "ValidationError", id: expect.any(String), message: expect.stringContaining("environment") });

    const data = {
      features: [{ name: "chain-a" }, { name: "chain-b" }, { name: "chain-c" }],
      featureStrategies: [{ name: "default", featureName: "chain-a" }],
      featureEnvironments: [{ featureName: "chain-a", enabled: true }],
      tagTypes: [],
      // Each parent exists in the data, but b cannot get a parent once a depends on it: found while writing.
      dependencies: [
        { feature: "chain-a", dependencies: [{ feature: "chain-b" }] },
        { feature: "chain-b", dependencies: [{ feature: "chain-c" }] },
      ],
    };
    const refused = await json(
      await onTarget("/api/admin/features-batch/import", { method: "POST", body: { project, environment, data } }),
      400,
    );
    expect(refused).toMatchObject({ name: "ValidationError", message: expect.stringContaining("chain-b") });
    for (const name of ["chain-a", "chain-b", "chain-c"]) {
      expect((await onTarget(`/api/admin/projects/${project}/features/${name}`)).status).toBe(404);
    }

    const undefinedStrategy = { ...data, dependencies: [], featureStrategies: [{ name: "nope-strategy", featureName: "chain-a" }] };
    const validation = await json(
      await onTarget("/api/admin/features-batch/validate", { method: "POST", body: { project, environment, data: undefinedStrategy } }),
    );
    expect(validation.errors).toEqual([{ message: expect.stringContaining("custom strategy"), affectedItems: ["nope-strategy"] }]);
    await json(
      await onTarget("/api/admin/features-batch/import", { method: "POST", body: { project, environment, data: undefinedStrategy } }),
      400,
    );
    expect((await onTarget(`/api/admin/projects/${project}/features/chain-a`)).status).toBe(404);
  });

  it("puts the environment changes into a change request where change requests are enabled", async () => {
    await json(
      await onTarget(`/api/admin/projects/${project}/environments/production/change-requests/config`, {
        method: "PUT",
        body: { changeRequestsEnabled: true },
      }),
      204,
    );
    // One flag the target has, one it has not: the new one is created, both changes are proposed.
    const admin = flagAdmin(onSource, project);
    await admin.createFeature("moved-new", { description: "only in the source" });
    await admin.addStrategy("moved-new", environment, { name: "default" });
    const data = await json(
      await onSource("/api/admin/features-batch/export", { method: "POST", body: { environment, features: ["moved-off", "moved-new"] } }),
    );
    for (const entry of data.featureEnvironments) entry.enabled = true;
    await json(await onTarget("/api/admin/features-batch/import", { method: "POST", body: { project, environment: "production", data } }));
    for (const name of ["moved-off", "moved-new"]) {
      const flag = await json(await onTarget(`/api/admin/projects/${project}/features/${name}`));
      expect(flag.environments.find((e: { name: string }) => e.name === "production")).toMatchObject({ enabled: false, strategies: [] });
    }
    expect((await json(await onTarget(`/api/admin/projects/${project}/features/moved-new`))).description).toBe("only in the source");
    const requests = await json(await onTarget(`/api/admin/projects/${project}/change-requests`));
    const draft = requests.find((r: { environment: string }) => r.environment === "production");
    const actions = draft.features
      .flatMap((f: { name: string; changes: { action: string }[] }) => f.changes.map((c) => `${f.name} ${c.action}`))
      .sort();
    expect(actions).toEqual(["moved-new addStrategy", "moved-new updateEnabled", "moved-off addStrategy", "moved-off updateEnabled"]);
  });
});
