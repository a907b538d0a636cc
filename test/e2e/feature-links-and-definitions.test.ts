import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  contextFieldListSchema,
  contextFieldSchema,
  featureLifecycleSchema,
  featureSchema,
  strategyDefinitionSchema,
  strategyListSchema,
  uiConfigSchema,
  validateArchiveResponseSchema,
} from "@vexil/contracts";
import { Strategy, Unleash } from "unleash-client";
import { z } from "zod";
import { oversize, plainTextRequest, startTestSystem, type TestSystem } from "../src/harness.js";
import { until } from "../src/sdks.js";

let vexil: TestSystem;
beforeAll(async () => {
  vexil = await startTestSystem();
  await call("/api/admin/projects", { method: "POST", body: { id: "other", name: "Other" } }, 201);
  await call("/api/admin/projects/default/features", { method: "POST", body: { name: "definitions-flag" } }, 201);
  await call("/api/admin/projects/other/features", { method: "POST", body: { name: "elsewhere" } }, 201);
});
afterAll(() => vexil.stop());

type Init = Parameters<TestSystem["api"]>[1];
const call = <T>(path: string, init: Init, status: number, schema?: z.ZodType<T>) => vexil.expectStatus(path, init, status, schema);
const expectError = (path: string, init: Init, status: number, name: string) => vexil.expectError(path, init, status, name);
const flagPath = (name: string, project = "default") => `/api/admin/projects/${project}/features/${name}`;

describe("custom strategy definitions", () => {
  const list = () => call("/api/admin/strategies", {}, 200, strategyListSchema);
  const definition = {
    name: "percentageOfTenants",
    displayName: "Tenants",
    description: "On for some tenants",
    parameters: [{ name: "tenants", type: "list" as const, description: "Tenant ids", required: true }],
  };

  it("creates (201 + location), reads, updates, deprecates and reactivates", async () => {
    const res = await vexil.api("/api/admin/strategies", { method: "POST", body: definition });
    expect(res.status).toBe(201);
    expect(res.headers.get("location")).toBe("strategies/percentageOfTenants");
    const created = strategyDefinitionSchema.parse(await res.json());
    expect(created).toEqual({ ...definition, title: null, editable: true, deprecated: false });
    expect((await list()).strategies.map((s) => s.name)).toContain("percentageOfTenants");

    await call("/api/admin/strategies/percentageOfTenants", { method: "PUT", body: { ...definition, description: "Tenants only" } }, 200);
    expect((await call("/api/admin/strategies/percentageOfTenants", {}, 200, strategyDefinitionSchema)).description).toBe("Tenants only");
    await call("/api/admin/strategies/percentageOfTenants/deprecate", { method: "POST" }, 200);
    expect((await call("/api/admin/strategies/percentageOfTenants", {}, 200, strategyDefinitionSchema)).deprecated).toBe(true);
    await call("/api/admin/strategies/percentageOfTenants/reactivate", { method: "POST" }, 200);
    expect((await call("/api/admin/strategies/percentageOfTenants", {}, 200, strategyDefinitionSchema)).deprecated).toBe(false);
  });

  it("refuses to delete it while a flag uses it (409), then deletes it", async () => {
    const strategy = (await call(
      `${flagPath("definitions-flag")}/environments/development/strategies`,
      {
        method: "POST",
        body: { name: "percentageOfTenants", parameters: { tenants: "a,b" } },
      },
      200,
    )) as { id: string };
    const before = await list();
    await expectError("/api/admin/strategies/percentageOfTenants", { method: "DELETE" }, 409, "NameExistsError");
    expect(await list()).toEqual(before);
    await call(`${flagPath("definitions-flag")}/environments/development/strategies/${strategy.id}`, { method: "DELETE" }, 200);
    await call("/api/admin/strategies/percentageOfTenants", { method: "DELETE" }, 200);
    await expectError("/api/admin/strategies/percentageOfTenants", {}, 404, "NotFoundError");
  });

  it("refuses changes to built-ins (400), duplicates (409), unknown names (404), bad input (400, 413, 415)", async () => {
    const before = await list();
    await expectError("/api/admin/strategies", { method: "POST", body: { name: "default", parameters: [] } }, 409, "NameExistsError");
    await expectError(
      "/api/admin/strategies/default",
      { method: "PUT", body: { name: "default", parameters: [] } },
      400,
      "ValidationError",
    );
    await expectError("/api/admin/strategies/flexibleRollout/deprecate", { method: "POST" }, 400, "ValidationError");
    await expectError("/api/admin/strategies/default", { method: "DELETE" }, 400, "ValidationError");
    await expectError("/api/admin/strategies/nope/deprecate", { method: "POST" }, 404, "NotFoundError");
    await expectError("/api/admin/strategies/nope", { method: "PUT", body: { name: "nope", parameters: [] } }, 404, "NotFoundError");
    await expectError("/api/admin/strategies", { method: "POST", body: { name: "bad name", parameters: [] } }, 400, "ValidationError");
    await expectError(
      "/api/admin/strategies",
      { method: "POST", body: { name: "x", parameters: [{ name: "p", type: "date" }] } },
      400,
      "ValidationError",
    );
    await expectError("/api/admin/strategies", { method: "POST", body: oversize({ name: "big" }) }, 413, "ContentTooLarge");
    await expectError("/api/admin/strategies", plainTextRequest("POST"), 415, "ContentTypeerror");
    await expectError("/api/admin/strategies", { method: "POST", token: null, body: definition }, 401, "AuthenticationRequired");
    await expectError("/api/admin/strategies", { method: "POST", token: vexil.tokens.client, body: definition }, 403, "NoAccessError");
    expect(await list()).toEqual(before);
  });
});

/** A custom strategy is the SDK's to implement: Vexil serves its name and parameters as written. */
describe.each(["default", "other"])("a flag with a custom strategy in project %s", (project) => {
  class TenantStrategy extends Strategy {
    constructor() {
      super(`tenants-${project}`);
    }
    override isEnabled(parameters: { tenants: string }, context: { properties?: Record<string, string> }) {
      return parameters.tenants.split(",").includes(context.properties?.tenant ?? "");
    }
  }
  let sdk: Unleash | undefined;
  afterAll(() => sdk?.destroy());

  it("reaches the real SDK through a token for its project, which decides with its own implementation", async () => {
    const strategy = `tenants-${project}`;
    const flag = `${project}-tenants`;
    await call("/api/admin/strategies", { method: "POST", body: { name: strategy, parameters: [{ name: "tenants", type: "list" }] } }, 201);
    await call(`/api/admin/projects/${project}/features`, { method: "POST", body: { name: flag } }, 201);
    const environment = `${flagPath(flag, project)}/environments/development`;
    await call(`${environment}/strategies`, { method: "POST", body: { name: strategy, parameters: { tenants: "a,b" } } }, 200);
    await call(`${environment}/on`, { method: "POST" }, 200);
    const token = await vexil.createApiToken({ type: "client", projects: [project] });
    sdk = new Unleash({
      appName: `e2e-custom-${project}`,
      url: `${vexil.url}/api`,
      customHeaders: { Authorization: token },
      refreshInterval: 100,
      disableMetrics: true,
      backupPath: vexil.dataDir,
      strategies: [new TenantStrategy()],
    });
    const withTenant = (tenant: string) => sdk!.isEnabled(flag, { properties: { tenant } });
    await until(() => withTenant("a"), 20_000, `${flag} on for tenant a`);
    expect([withTenant("b"), withTenant("c")]).toEqual([true, false]);
    expect(sdk.getFeatureToggleDefinition(flag)?.strategies).toEqual([
      expect.objectContaining({ name: strategy, parameters: { tenants: "a,b" }, constraints: [] }),
    ]);
  });
});

describe("context fields", () => {
  const list = () => call("/api/admin/context", {}, 200, contextFieldListSchema);

  it("starts with Unleash's built-in fields", async () => {
    const names = (await list()).map((f) => f.name);
    expect(names).toEqual(expect.arrayContaining(["environment", "userId", "appName", "currentTime", "sessionId"]));
    expect((await call("/api/admin/context/sessionId", {}, 200, contextFieldSchema)).stickiness).toBe(true);
  });

  it("creates (201 + location), updates as a replacement, and deletes", async () => {
    const res = await vexil.api("/api/admin/context", {
      method: "POST",
      body: {
        name: "tenant",
        description: "Customer",
        stickiness: true,
        legalValues: [{ value: "acme", description: "Acme" }, { value: "globex" }],
      },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("location")).toBe("context/tenant");
    const created = contextFieldSchema.parse(await res.json());
    expect(created).toMatchObject({ name: "tenant", description: "Customer", stickiness: true, sortOrder: 0 });
    expect(created.legalValues).toEqual([{ value: "acme", description: "Acme" }, { value: "globex" }]);
    await call("/api/admin/context/validate", { method: "POST", body: { name: "region" } }, 200);
    await expectError("/api/admin/context/validate", { method: "POST", body: { name: "tenant" } }, 409, "NameExistsError");

    await call(
      "/api/admin/context/tenant",
      { method: "PUT", body: { description: "Paying customer", legalValues: [{ value: "acme" }] } },
      200,
    );
    expect(await call("/api/admin/context/tenant", {}, 200, contextFieldSchema)).toMatchObject({
      description: "Paying customer",
      stickiness: false,
      legalValues: [{ value: "acme" }],
    });
  });

  it("makes constraints respect legal values", async () => {
    await expectError(
      "/api/admin/segments",
      { method: "POST", body: { name: "globex-only", constraints: [{ contextName: "tenant", operator: "IN", values: ["globex"] }] } },
      400,
      "ValidationError",
    );
    await call(
      "/api/admin/segments",
      { method: "POST", body: { name: "acme-only", constraints: [{ contextName: "tenant", operator: "IN", values: ["acme"] }] } },
      201,
    );
    const strategy = { name: "default", constraints: [{ contextName: "tenant", operator: "IN", values: ["initech"] }] };
    await expectError(
      `${flagPath("definitions-flag")}/environments/development/strategies`,
      { method: "POST", body: strategy },
      400,
      "ValidationError",
    );
  });

  it("refuses duplicates (409), unknown fields (404) and bad input (400, 401, 403, 413, 415), store unchanged", async () => {
    const before = await list();
    await expectError("/api/admin/context", { method: "POST", body: { name: "userId" } }, 409, "NameExistsError");
    await expectError("/api/admin/context", { method: "POST", body: { name: "a b" } }, 400, "ValidationError");
    await expectError(
      "/api/admin/context",
      { method: "POST", body: { name: "dup", legalValues: [{ value: "a" }, { value: "a" }] } },
      400,
      "ValidationError",
    );
    await expectError("/api/admin/context/tenant", { method: "PUT", body: { name: "renamed" } }, 400, "ValidationError");
    await expectError("/api/admin/context/nope", { method: "PUT", body: { description: "x" } }, 404, "NotFoundError");
    await expectError("/api/admin/context/nope", { method: "DELETE" }, 404, "NotFoundError");
    await expectError("/api/admin/context", { method: "POST", body: oversize({ name: "big" }) }, 413, "ContentTooLarge");
    await expectError("/api/admin/context", plainTextRequest("POST"), 415, "ContentTypeerror");
    await expectError("/api/admin/context", { method: "POST", token: null, body: { name: "x" } }, 401, "AuthenticationRequired");
    await expectError("/api/admin/context", { method: "POST", token: vexil.tokens.client, body: { name: "x" } }, 403, "NoAccessError");
    expect(await list()).toEqual(before);
  });

  it("deletes a field", async () => {
    await call("/api/admin/context", { method: "POST", body: { name: "short-lived" } }, 201);
    await call("/api/admin/context/short-lived", { method: "DELETE" }, 200);
    await expectError("/api/admin/context/short-lived", {}, 404, "NotFoundError");
  });
});

/**
 * Dependencies and lifecycles run in `default` and in a project created while Vexil runs; each
 * project's flags carry its name (flag names are unique across projects).
 */
describe.each(["default", "links-fresh"])("flags in project %s", (project) => {
  const n = (name: string) => (project === "default" ? name : `${project}-${name}`);
  const flagPath = (name: string, inProject = project) => `/api/admin/projects/${inProject}/features/${name}`;
  const feature = (name: string) => call(flagPath(name), {}, 200, featureSchema);
  beforeAll(async () => {
    if (project !== "default") await vexil.createProject(project);
    for (const name of ["parent", "child", "second-child", "loner", "lifecycle-flag"]) {
      await call(`/api/admin/projects/${project}/features`, { method: "POST", body: { name: n(name) } }, 201);
    }
  });

  describe("dependencies", () => {
    it("adds a parent: children on the parent, dependencies on the child", async () => {
      await call(`${flagPath(n("child"))}/dependencies`, { method: "POST", body: { feature: n("parent"), variants: ["blue"] } }, 200);
      expect((await feature(n("child"))).dependencies).toEqual([{ feature: n("parent"), enabled: true, variants: ["blue"] }]);
      expect((await feature(n("parent"))).children).toEqual([n("child")]);
      expect(await call(`/api/admin/projects/${project}/dependencies`, {}, 200, z.boolean())).toBe(true);
      expect(await call("/api/admin/projects/other/dependencies", {}, 200, z.boolean())).toBe(false);
    });

    it("drops variants when the parent must be disabled, and replaces the earlier parent", async () => {
      await call(
        `${flagPath(n("second-child"))}/dependencies`,
        { method: "POST", body: { feature: n("parent"), enabled: false, variants: ["blue"] } },
        200,
      );
      expect((await feature(n("second-child"))).dependencies).toEqual([{ feature: n("parent"), enabled: false, variants: [] }]);
    });

    it.each([
      ["itself", n("child"), { feature: n("child") }],
      ["a flag of another project", n("loner"), { feature: "elsewhere" }],
      ["an unknown flag", n("loner"), { feature: "ghost" }],
      ["a parent that has a parent (no chains, no cycles)", n("loner"), { feature: n("child") }],
      ["a child for a flag that has children", n("parent"), { feature: n("loner") }],
      ["variants that are not strings", n("loner"), { feature: n("parent"), variants: [1] }],
    ])("400 for %s, nothing changed", async (_case, child, body) => {
      const before = await feature(child);
      await expectError(`${flagPath(child)}/dependencies`, { method: "POST", body }, 400, "ValidationError");
      expect((await feature(child)).dependencies).toEqual(before.dependencies);
    });

    it("401, 403, 404, 413 and 415", async () => {
      const body = { feature: n("parent") };
      await expectError(`${flagPath(n("loner"))}/dependencies`, { method: "POST", token: null, body }, 401, "AuthenticationRequired");
      await expectError(`${flagPath(n("loner"))}/dependencies`, { method: "POST", token: vexil.tokens.client, body }, 403, "NoAccessError");
      await expectError(`${flagPath("ghost")}/dependencies`, { method: "POST", body }, 404, "NotFoundError");
      await expectError(`${flagPath(n("loner"), "other")}/dependencies`, { method: "POST", body }, 404, "NotFoundError");
      await expectError(`${flagPath(n("loner"))}/dependencies`, { method: "POST", body: oversize(body) }, 413, "ContentTooLarge");
      await expectError(`${flagPath(n("loner"))}/dependencies`, plainTextRequest("POST"), 415, "ContentTypeerror");
      expect((await feature(n("loner"))).dependencies).toEqual([]);
    });

    it("validates archiving with POST /api/admin/projects/:projectId/archive/validate", async () => {
      const validate = (features: string[]) =>
        call(`/api/admin/projects/${project}/archive/validate`, { method: "POST", body: { features } }, 200, validateArchiveResponseSchema);
      expect(await validate([n("parent")])).toEqual({ parentsWithChildFeatures: [n("parent")], hasDeletedDependencies: true });
      expect(await validate([n("parent"), n("child"), n("second-child")])).toEqual({
        parentsWithChildFeatures: [],
        hasDeletedDependencies: true,
      });
      expect(await validate([n("loner")])).toEqual({ parentsWithChildFeatures: [], hasDeletedDependencies: false });
      await expectError(
        `/api/admin/projects/${project}/archive/validate`,
        { method: "POST", body: { features: n("parent") } },
        400,
        "ValidationError",
      );
      await expectError(
        `/api/admin/projects/${project}/archive/validate`,
        { method: "POST", token: null, body: { features: [] } },
        401,
        "AuthenticationRequired",
      );
      await expectError(
        `/api/admin/projects/${project}/archive/validate`,
        { method: "POST", token: vexil.tokens.client, body: { features: [] } },
        403,
        "NoAccessError",
      );
      await expectError(`/api/admin/projects/${project}/archive/validate`, plainTextRequest("POST"), 415, "ContentTypeerror");
      await expectError("/api/admin/projects/nope/archive/validate", { method: "POST", body: { features: [] } }, 404, "NotFoundError");
    });

    it("removes one parent, 404 for a parent it does not have, and removes all", async () => {
      await expectError(`${flagPath(n("child"))}/dependencies/${n("loner")}`, { method: "DELETE" }, 404, "NotFoundError");
      await call(`${flagPath(n("child"))}/dependencies/${n("parent")}`, { method: "DELETE" }, 200);
      expect((await feature(n("child"))).dependencies).toEqual([]);
      await call(`${flagPath(n("second-child"))}/dependencies`, { method: "DELETE" }, 200);
      expect((await feature(n("second-child"))).dependencies).toEqual([]);
      expect((await feature(n("parent"))).children).toEqual([]);
      const events = (await call(`/api/admin/events?feature=${n("child")}`, {}, 200)) as { events: { type: string }[] };
      expect(events.events.map((e) => e.type)).toEqual(expect.arrayContaining(["feature-dependency-added", "feature-dependency-removed"]));
    });

    it("archiving a parent removes its children's dependency on it", async () => {
      await call(`${flagPath(n("child"))}/dependencies`, { method: "POST", body: { feature: n("loner") } }, 200);
      await call(`/api/admin/projects/${project}/archive`, { method: "POST", body: { features: [n("loner")] } }, 202).catch(async () =>
        call(`${flagPath(n("loner"))}`, { method: "DELETE" }, 202),
      );
      await expect.poll(async () => (await feature(n("child"))).dependencies, { timeout: 30_000 }).toEqual([]);
    });
  });

  describe("lifecycle", () => {
    const stages = async () =>
      (await call(`${flagPath(n("lifecycle-flag"))}/lifecycle`, {}, 200, featureLifecycleSchema)).map((s) => s.stage);

    it("starts initial, moves to pre-live when enabled in development and live in production", async () => {
      expect(await stages()).toEqual(["initial"]);
      await call(`${flagPath(n("lifecycle-flag"))}/environments/development/on`, { method: "POST" }, 200);
      expect(await stages()).toEqual(["initial", "pre-live"]);
      await call(`${flagPath(n("lifecycle-flag"))}/environments/production/on`, { method: "POST" }, 200);
      const lifecycle = await call(`${flagPath(n("lifecycle-flag"))}/lifecycle`, {}, 200, featureLifecycleSchema);
      expect(lifecycle.map((s) => s.stage)).toEqual(["initial", "pre-live", "live"]);
      for (const entry of lifecycle) expect(Date.parse(entry.enteredStageAt)).not.toBeNaN();
      expect((await feature(n("lifecycle-flag"))).lifecycle?.stage).toBe("live");
    });

    it("marks complete with a status and back", async () => {
      await call(
        `${flagPath(n("lifecycle-flag"))}/lifecycle/complete`,
        { method: "POST", body: { status: "kept", statusValue: "blue" } },
        200,
      );
      const lifecycle = await call(`${flagPath(n("lifecycle-flag"))}/lifecycle`, {}, 200, featureLifecycleSchema);
      expect(lifecycle.at(-1)).toMatchObject({ stage: "completed", status: "kept", statusValue: "blue" });
      await call(`${flagPath(n("lifecycle-flag"))}/lifecycle/uncomplete`, { method: "POST" }, 200);
      expect(await stages()).toEqual(["initial", "pre-live", "live"]);
      const events = (await call(`/api/admin/events?feature=${n("lifecycle-flag")}`, {}, 200)) as { events: { type: string }[] };
      expect(events.events.map((e) => e.type)).toEqual(expect.arrayContaining(["feature-completed", "feature-uncompleted"]));
    });

    it("refuses a bad status (400), unknown flags (404), 401, 403, 413, 415, lifecycle unchanged", async () => {
      const before = await stages();
      const path = `${flagPath(n("lifecycle-flag"))}/lifecycle/complete`;
      await expectError(path, { method: "POST", body: { status: "bogus" } }, 400, "ValidationError");
      await expectError(`${flagPath("ghost")}/lifecycle/complete`, { method: "POST", body: { status: "kept" } }, 404, "NotFoundError");
      await expectError(`${flagPath("ghost")}/lifecycle`, {}, 404, "NotFoundError");
      await expectError(path, { method: "POST", token: null, body: { status: "kept" } }, 401, "AuthenticationRequired");
      await expectError(path, { method: "POST", token: vexil.tokens.client, body: { status: "kept" } }, 403, "NoAccessError");
      await expectError(path, { method: "POST", body: oversize({ status: "kept" }) }, 413, "ContentTooLarge");
      await expectError(path, plainTextRequest("POST"), 415, "ContentTypeerror");
      expect(await stages()).toEqual(before);
    });
  });
});

describe("ui-config", () => {
  it("says what this server is", async () => {
    const config = await call("/api/admin/ui-config", {}, 200, uiConfigSchema);
    expect(config.name).toBe("Vexil");
    expect(config.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(config.unleashApiVersion).toBe("8.2.0");
    expect(config.authenticationType).toBe("open-source");
    expect(config.resourceLimits).toEqual({ segmentValues: 1000, strategySegments: 5 });
    await expectError("/api/admin/ui-config", { token: null }, 401, "AuthenticationRequired");
    await expectError("/api/admin/ui-config", { token: vexil.tokens.client }, 403, "NoAccessError");
  });
});
