import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  environmentListSchema,
  environmentSchema,
  featureEnvironmentSchema,
  featureListSchema,
  featureSchema,
  featureSearchResultSchema,
  featureVariantsResponseSchema,
  healthReportSchema,
  projectListSchema,
  projectOverviewSchema,
  projectSchema,
  savedStrategySchema,
  strategyFieldsSchema,
} from "@vexil/contracts";
import { z } from "zod";
import { startTestSystem, type TestSystem } from "../src/harness.js";

let vexil: TestSystem;
beforeAll(async () => {
  vexil = await startTestSystem();
});
afterAll(() => vexil.stop());

type Init = Parameters<TestSystem["api"]>[1];
const call = <T>(path: string, init: Init, status: number, schema?: z.ZodType<T>) => vexil.expectStatus(path, init, status, schema);
const get = <T>(path: string, schema?: z.ZodType<T>) => call(path, {}, 200, schema);
const expectError = (path: string, init: Init, status: number, name: string) => vexil.expectError(path, init, status, name);
/** Refused requests: no token (401), a client token (403). */
async function expectGuarded(path: string, init: Init = {}) {
  await expectError(path, { ...init, token: null }, 401, "AuthenticationRequired");
  await expectError(path, { ...init, token: vexil.tokens.client }, 403, "NoAccessError");
}
const createFlag = (name: string, body: Record<string, unknown> = {}, project = "default") =>
  call(`/api/admin/projects/${project}/features`, { method: "POST", body: { name, ...body } }, 201, featureSchema);
const strategyBody = {
  name: "flexibleRollout",
  title: "half",
  parameters: { rollout: "50", stickiness: "default", groupId: "g" },
  constraints: [{ contextName: "appName", operator: "IN", values: ["web"] }],
};

describe("environments", () => {
  it("lists the seeded environments with their types", async () => {
    const body = await get("/api/admin/environments", environmentListSchema);
    expect(body.environments.map((e) => [e.name, e.type, e.enabled])).toEqual([
      ["development", "development", true],
      ["production", "production", true],
    ]);
    await expectGuarded("/api/admin/environments");
  });

  it("creates, updates, disables, enables and sorts environments", async () => {
    const created = await call(
      "/api/admin/environments",
      { method: "POST", body: { name: "staging", type: "test", sortOrder: 5 } },
      201,
      environmentSchema,
    );
    expect(created).toEqual({ name: "staging", type: "test", enabled: true, protected: false, sortOrder: 5 });
    await expectError("/api/admin/environments", { method: "POST", body: { name: "staging", type: "test" } }, 409, "NameExistsError");
    await expectError("/api/admin/environments", { method: "POST", body: { name: "bad name", type: "test" } }, 400, "ValidationError");
    await expectError("/api/admin/environments", { method: "POST", body: { type: "test" } }, 400, "ValidationError");
    await expectGuarded("/api/admin/environments", { method: "POST", body: { name: "x", type: "y" } });

    const updated = await call(
      "/api/admin/environments/update/staging",
      { method: "PUT", body: { type: "staging" } },
      200,
      environmentSchema,
    );
    expect(updated.type).toBe("staging");
    await expectError("/api/admin/environments/update/nope", { method: "PUT", body: { type: "x" } }, 404, "NotFoundError");

    await call("/api/admin/environments/staging/off", { method: "POST" }, 204);
    expect((await get("/api/admin/environments/staging", environmentSchema)).enabled).toBe(false);
    await call("/api/admin/environments/staging/on", { method: "POST" }, 204);
    expect((await get("/api/admin/environments/staging", environmentSchema)).enabled).toBe(true);
    await expectError("/api/admin/environments/nope/on", { method: "POST" }, 404, "NotFoundError");

    await call("/api/admin/environments/sort-order", { method: "PUT", body: { staging: 1, development: 2 } }, 200);
    const sorted = await get("/api/admin/environments", environmentListSchema);
    expect(sorted.environments.map((e) => e.name)).toEqual(["staging", "development", "production"]);
    await expectError("/api/admin/environments/sort-order", { method: "PUT", body: { staging: 9, ghost: 1 } }, 404, "NotFoundError");
    expect((await get("/api/admin/environments/staging", environmentSchema)).sortOrder).toBe(1);
  });
});

describe("projects", () => {
  it("creates a project with naming, limit and environments, lists, updates and deletes it", async () => {
    const created = await call(
      "/api/admin/projects",
      {
        method: "POST",
        body: {
          id: "shop",
          name: "Shop",
          description: "web shop",
          mode: "protected",
          defaultStickiness: "userId",
          featureLimit: 2,
          featureNaming: { pattern: "shop-[a-z-]+", example: "shop-cart", description: "shop- prefix" },
          environments: ["development", "production"],
        },
      },
      201,
      projectSchema,
    );
    expect(created).toMatchObject({
      id: "shop",
      name: "Shop",
      mode: "protected",
      defaultStickiness: "userId",
      featureLimit: 2,
      featureNaming: { pattern: "shop-[a-z-]+", example: "shop-cart", description: "shop- prefix" },
      environments: ["development", "production"],
      updatedAt: null,
    });
    await expectError("/api/admin/projects", { method: "POST", body: { id: "shop", name: "Again" } }, 409, "NameExistsError");
    const badExample = await expectError(
      "/api/admin/projects",
      { method: "POST", body: { id: "p2", name: "P2", featureNaming: { pattern: "a-.*", example: "b-1" } } },
      400,
      "ValidationError",
    );
    expect(badExample.message).toContain("does not match");
    await expectError(
      "/api/admin/projects",
      { method: "POST", body: { id: "p3", name: "P3", featureNaming: { pattern: "(" } } },
      400,
      "ValidationError",
    );
    await expectError("/api/admin/projects", { method: "POST", body: { id: "p4", name: "P4", mode: "secret" } }, 400, "ValidationError");
    await expectGuarded("/api/admin/projects", { method: "POST", body: { id: "p5", name: "P5" } });
    expect((await get("/api/admin/projects", projectListSchema)).projects.map((p) => p.id)).toEqual(["default", "shop"]);

    const updated = await call(
      "/api/admin/projects/shop",
      { method: "PUT", body: { name: "Shop 2", featureLimit: null } },
      200,
      projectSchema,
    );
    expect(updated).toMatchObject({ name: "Shop 2", featureLimit: null, mode: "protected" });
    expect(updated.updatedAt).not.toBeNull();
    await expectError("/api/admin/projects/ghost", { method: "PUT", body: { name: "x" } }, 404, "NotFoundError");
  });

  it("enforces the naming pattern and the feature limit on flag creation", async () => {
    await call("/api/admin/projects/shop", { method: "PUT", body: { name: "Shop", featureLimit: 1 } }, 200);
    const mismatch = await expectError(
      "/api/admin/projects/shop/features",
      { method: "POST", body: { name: "cart" } },
      400,
      "ValidationError",
    );
    expect(mismatch.message).toContain('naming pattern: "shop-[a-z-]+"');
    await createFlag("shop-cart", {}, "shop");
    const limit = await expectError(
      "/api/admin/projects/shop/features",
      { method: "POST", body: { name: "shop-more" } },
      409,
      "NameExistsError",
    );
    expect(limit.message).toContain("maximum number of feature flags");
    expect((await get("/api/admin/projects/shop/features", featureListSchema)).features.map((f) => f.name)).toEqual(["shop-cart"]);
  });

  it("refuses to delete a project with live flags, deletes it once they are archived", async () => {
    await expectError("/api/admin/projects/shop", { method: "DELETE" }, 409, "NameExistsError");
    await expectError("/api/admin/projects/default", { method: "DELETE" }, 400, "ValidationError");
    await call("/api/admin/projects/shop/features/shop-cart", { method: "DELETE" }, 202);
    await expectGuarded("/api/admin/projects/shop", { method: "DELETE" });
    await call("/api/admin/projects/shop", { method: "DELETE" }, 200);
    await expectError("/api/admin/projects/shop", {}, 404, "NotFoundError");
    await expectError("/api/admin/archive/shop-cart", { method: "DELETE" }, 404, "NotFoundError");
  });

  it("adds and removes project environments and keeps a default strategy", async () => {
    await call("/api/admin/projects", { method: "POST", body: { id: "envs", name: "Envs", environments: ["development"] } }, 201);
    await call("/api/admin/projects/envs/environments", { method: "POST", body: { environment: "staging" } }, 200);
    await expectError(
      "/api/admin/projects/envs/environments",
      { method: "POST", body: { environment: "staging" } },
      409,
      "NameExistsError",
    );
    await expectError("/api/admin/projects/envs/environments", { method: "POST", body: { environment: "ghost" } }, 404, "NotFoundError");
    const fallback = await get("/api/admin/projects/envs/environments/staging/default-strategy", strategyFieldsSchema);
    expect(fallback).toMatchObject({ name: "flexibleRollout", parameters: { rollout: "100", stickiness: "default" } });
    const set = await call(
      "/api/admin/projects/envs/environments/staging/default-strategy",
      { method: "PUT", body: { name: "userWithId", parameters: { userIds: "a,b" } } },
      200,
      strategyFieldsSchema,
    );
    expect(set).toMatchObject({ name: "userWithId", parameters: { userIds: "a,b" }, constraints: [], segments: [] });
    await expectError(
      "/api/admin/projects/envs/environments/staging/default-strategy",
      { method: "POST", body: { name: "noSuchStrategy" } },
      400,
      "ValidationError",
    );
    expect(await get("/api/admin/projects/envs/environments/staging/default-strategy")).toMatchObject({ name: "userWithId" });
    await call("/api/admin/projects/envs/environments/development", { method: "DELETE" }, 200);
    await expectError("/api/admin/projects/envs/environments/staging", { method: "DELETE" }, 400, "ValidationError");
    await expectError("/api/admin/projects/envs/environments/production", { method: "DELETE" }, 404, "NotFoundError");
    expect((await get("/api/admin/environments/project/envs", environmentListSchema)).environments.map((e) => e.name)).toEqual(["staging"]);
  });
});

/**
 * Every flow on flags runs in `default` and in a project created while Vexil runs (with the
 * environments every project starts with here). Flag names are unique across projects, so each
 * project's flags carry its name.
 */
describe.each(["default", "flags-fresh"])("flags in project %s", (project) => {
  const features = `/api/admin/projects/${project}/features`;
  const n = (name: string) => (project === "default" ? name : `${project}-${name}`);
  const createFlag = (name: string, body: Record<string, unknown> = {}) =>
    call(features, { method: "POST", body: { name, ...body } }, 201, featureSchema);
  beforeAll(async () => {
    if (project !== "default") await vexil.createProject(project, { environments: ["development", "production"] });
  });

  describe("the project overview and health report", () => {
    it("serves the overview (endpoint 1) and the health report (endpoint 2)", async () => {
      await createFlag(n("health-fresh"), { type: "release" });
      await createFlag(n("health-stale"), { type: "release" });
      await call(`/api/admin/features/${n("health-stale")}/stale/on`, { method: "POST" }, 200);
      await call(`${features}/${n("health-fresh")}/environments/production/on`, { method: "POST" }, 200);
      const report = await get(`/api/admin/projects/${project}/health-report`, healthReportSchema);
      expect(report).toMatchObject({
        version: 1,
        name: project === "default" ? "Default" : project,
        mode: "open",
        defaultStickiness: "default",
        members: 0,
        featureLimit: null,
      });
      expect(report.staleCount).toBe(1);
      expect(report.potentiallyStaleCount).toBe(0);
      expect(report.activeCount).toBe(report.features.length - 1);
      expect(report.health).toBe(Math.round(((report.features.length - 1) / report.features.length) * 100));
      expect(report.environments.map((e) => e.environment)).toEqual(["development", "production"]);
      expect(report.stats).toMatchObject({
        createdCurrentWindow: report.features.length,
        archivedCurrentWindow: 0,
        avgTimeToProdCurrentWindow: 0,
      });
      expect(report.stats?.projectActivityCurrentWindow).toBeGreaterThan(3);
      const overview = await get(`/api/admin/projects/${project}`, projectOverviewSchema);
      expect(overview).not.toHaveProperty("staleCount");
      expect(overview.features?.map((f) => f.name)).toEqual(report.features.map((f) => f.name));
      await expectGuarded(`/api/admin/projects/${project}/health-report`);
      await expectGuarded(`/api/admin/projects/${project}`);
      await expectError("/api/admin/projects/ghost/health-report", {}, 404, "NotFoundError");
      await expectError("/api/admin/projects/ghost", {}, 404, "NotFoundError");
    });
  });

  describe("features", () => {
    it("creates a flag and answers the full Feature", async () => {
      const flag = await createFlag(n("checkout"), { type: "experiment", description: "new checkout", impressionData: true });
      expect(flag).toMatchObject({
        name: n("checkout"),
        type: "experiment",
        description: "new checkout",
        project,
        archived: false,
        stale: false,
        favorite: false,
        impressionData: true,
        enabled: false,
        archivedAt: null,
        tags: [],
        children: [],
        dependencies: [],
        lifecycle: { stage: "initial", enteredStageAt: expect.any(String) },
        createdBy: { id: expect.any(Number), name: expect.any(String), imageUrl: expect.any(String) },
      });
      expect(flag.collaborators?.users).toHaveLength(1);
      expect(flag.environments?.map((e) => e.name)).toEqual(["development", "production"]);
      expect(flag.environments?.[0]).toEqual({
        name: "development",
        environment: "development",
        featureName: n("checkout"),
        type: "development",
        enabled: false,
        sortOrder: 2,
        variantCount: 0,
        strategies: [],
        variants: [],
        lastSeenAt: null,
        hasStrategies: false,
        hasEnabledStrategies: false,
      });
      expect(await get(`${features}/${n("checkout")}`, featureSchema)).toEqual(flag);
    });

    it("refuses bad names, duplicate names and unknown types, leaving nothing behind", async () => {
      await expectError(features, { method: "POST", body: { name: n("has space") } }, 400, "ValidationError");
      await expectError(features, { method: "POST", body: { name: n("ok-name"), type: "bogus" } }, 400, "ValidationError");
      await expectError(features, { method: "POST", body: { name: n("checkout") } }, 409, "NameExistsError");
      await expectError("/api/admin/projects/ghost/features", { method: "POST", body: { name: n("x1") } }, 404, "NotFoundError");
      await expectError(features, { method: "POST", body: "name=x", headers: { "content-type": "text/plain" } }, 415, "ContentTypeerror");
      await expectError(
        features,
        { method: "POST", body: { name: n("big"), description: "x".repeat(101 * 1024) } },
        413,
        "ContentTooLarge",
      );
      await expectGuarded(features, { method: "POST", body: { name: n("guarded") } });
      const names = (await get(features, featureListSchema)).features.map((f) => f.name);
      for (const name of ["has space", "ok-name", "x1", "big", "guarded"]) expect(names).not.toContain(name);
      await expectError("/api/admin/features/validate", { method: "POST", body: { name: n("checkout") } }, 409, "NameExistsError");
      await call("/api/admin/features/validate", { method: "POST", body: { name: n("free-name") } }, 200);
    });

    it("updates with PUT and JSON patch (endpoint 3), refusing a bad patch whole", async () => {
      const put = await call(
        `${features}/${n("checkout")}`,
        { method: "PUT", body: { description: "d2", type: "release" } },
        200,
        featureSchema,
      );
      expect(put).toMatchObject({ description: "d2", type: "release" });
      const patched = await call(
        `${features}/${n("checkout")}`,
        {
          method: "PATCH",
          body: [
            { op: "replace", path: "/description", value: "patched" },
            { op: "replace", path: "/impressionData", value: false },
            { op: "replace", path: "/stale", value: true },
          ],
        },
        200,
        featureSchema,
      );
      expect(patched).toMatchObject({ description: "patched", impressionData: false, stale: true });
      const before = await get(`${features}/${n("checkout")}`, featureSchema);
      for (const bad of [
        [
          { op: "replace", path: "/description", value: "x" },
          { op: "replace", path: "/name", value: "renamed" },
        ],
        [
          { op: "replace", path: "/description", value: "x" },
          { op: "replace", path: "/type", value: "bogus" },
        ],
        [{ op: "test", path: "/description", value: "x" }],
        [{ op: "replace", path: "/description" }],
        { op: "replace", path: "/description", value: "x" },
      ]) {
        await expectError(`${features}/${n("checkout")}`, { method: "PATCH", body: bad }, 400, "ValidationError");
      }
      await expectError(
        `${features}/${n("checkout")}`,
        { method: "PATCH", body: "[]", headers: { "content-type": "text/plain" } },
        415,
        "ContentTypeerror",
      );
      await expectError(`${features}/ghost`, { method: "PATCH", body: [] }, 404, "NotFoundError");
      await expectGuarded(`${features}/${n("checkout")}`, { method: "PATCH", body: [] });
      expect(await get(`${features}/${n("checkout")}`, featureSchema)).toEqual(before);
      await call(`/api/admin/features/${n("checkout")}/stale/off`, { method: "POST" }, 200);
    });

    it("enables an environment (endpoint 4) with the default strategy, disables it again", async () => {
      await createFlag(n("rollout"));
      const on = await call(`${features}/${n("rollout")}/environments/development/on`, { method: "POST" }, 200, featureSchema);
      const dev = on.environments?.find((e) => e.name === "development");
      expect(dev).toMatchObject({ enabled: true, hasStrategies: true, hasEnabledStrategies: true });
      expect(dev?.strategies).toEqual([
        expect.objectContaining({
          name: "flexibleRollout",
          featureName: n("rollout"),
          disabled: false,
          parameters: { rollout: "100", stickiness: "default", groupId: n("rollout") },
        }),
      ]);
      expect(on.enabled).toBe(true);
      const off = await call(`${features}/${n("rollout")}/environments/development/off`, { method: "POST" }, 200, featureSchema);
      expect(off.environments?.find((e) => e.name === "development")?.enabled).toBe(false);
      // Enabling again keeps the one strategy instead of adding another.
      const again = await call(`${features}/${n("rollout")}/environments/development/on`, { method: "POST" }, 200, featureSchema);
      expect(again.environments?.find((e) => e.name === "development")?.strategies).toHaveLength(1);
      await expectError(`${features}/${n("rollout")}/environments/ghost/on`, { method: "POST" }, 404, "NotFoundError");
      await expectError(`${features}/ghost/environments/development/on`, { method: "POST" }, 404, "NotFoundError");
      await expectGuarded(`${features}/${n("rollout")}/environments/development/on`, { method: "POST" });
    });

    it("re-activates disabled strategies only when asked to", async () => {
      await createFlag(n("dormant"));
      const strategy = await call(
        `${features}/${n("dormant")}/environments/production/strategies`,
        { method: "POST", body: { ...strategyBody, disabled: true } },
        200,
        savedStrategySchema,
      );
      const reactivated = await call(
        `${features}/${n("dormant")}/environments/production/on?shouldActivateDisabledStrategies=true`,
        { method: "POST" },
        200,
        featureSchema,
      );
      expect(reactivated.environments?.find((e) => e.name === "production")?.strategies).toEqual([
        expect.objectContaining({ id: strategy.id, disabled: false }),
      ]);
      await call(`${features}/${n("dormant")}/environments/production/off`, { method: "POST" }, 200);
      await call(
        `${features}/${n("dormant")}/environments/production/strategies/${strategy.id}`,
        { method: "PUT", body: { ...strategyBody, disabled: true } },
        200,
      );
      const withDefault = await call(`${features}/${n("dormant")}/environments/production/on`, { method: "POST" }, 200, featureSchema);
      const strategies = withDefault.environments?.find((e) => e.name === "production")?.strategies ?? [];
      expect(strategies.map((s) => [s.name, s.disabled])).toEqual([
        ["flexibleRollout", true],
        ["flexibleRollout", false],
      ]);
    });

    it("serves one feature environment", async () => {
      const env = await get(`${features}/${n("rollout")}/environments/development`, featureEnvironmentSchema);
      expect(env).toMatchObject({ name: "development", enabled: true, featureName: n("rollout") });
      await expectError(`${features}/${n("rollout")}/environments/ghost`, {}, 404, "NotFoundError");
    });

    it("archives, lists the archive, revives, and deletes right after archiving", async () => {
      await createFlag(n("short-lived"));
      await call(`${features}/${n("short-lived")}`, { method: "DELETE" }, 202);
      await expectError(`${features}/${n("short-lived")}`, {}, 404, "NotFoundError");
      expect((await get("/api/admin/archive/features", featureListSchema)).features.map((f) => f.name)).toContain(n("short-lived"));
      const archived = (await get(`/api/admin/archive/features/${project}`, featureListSchema)).features.find(
        (f) => f.name === n("short-lived"),
      );
      expect(archived).toMatchObject({ archived: true, archivedAt: expect.any(String), lifecycle: { stage: "archived" } });
      await call(`/api/admin/archive/revive/${n("short-lived")}`, { method: "POST" }, 200);
      expect(await get(`${features}/${n("short-lived")}`, featureSchema)).toMatchObject({
        archived: false,
        archivedAt: null,
        lifecycle: { stage: "initial" },
      });
      await expectError(`/api/admin/archive/${n("short-lived")}`, { method: "DELETE" }, 404, "NotFoundError");
      await call(`${features}/${n("short-lived")}`, { method: "DELETE" }, 202);
      await call(`/api/admin/archive/${n("short-lived")}`, { method: "DELETE" }, 200);
      await expectError(`/api/admin/archive/${n("short-lived")}`, { method: "DELETE" }, 404, "NotFoundError");
      // The name is free again.
      await createFlag(n("short-lived"));
    });

    it("archives, revives and deletes in bulk, all or nothing", async () => {
      await createFlag(n("bulk-a"));
      await createFlag(n("bulk-b"));
      await expectError(
        `/api/admin/projects/${project}/archive`,
        { method: "POST", body: { features: [n("bulk-a"), "ghost"] } },
        404,
        "NotFoundError",
      );
      expect((await get(`${features}/${n("bulk-a")}`, featureSchema)).archived).toBe(false);
      await expectError(`/api/admin/projects/${project}/archive`, { method: "POST", body: { features: [] } }, 400, "ValidationError");
      await call(`/api/admin/projects/${project}/archive`, { method: "POST", body: { features: [n("bulk-a"), n("bulk-b")] } }, 202);
      await call(`/api/admin/projects/${project}/revive`, { method: "POST", body: { features: [n("bulk-a")] } }, 200);
      await expectError(
        `/api/admin/projects/${project}/delete`,
        { method: "POST", body: { features: [n("bulk-a"), n("bulk-b")] } },
        404,
        "NotFoundError",
      );
      await call(`/api/admin/projects/${project}/delete`, { method: "POST", body: { features: [n("bulk-b")] } }, 200);
      expect((await get("/api/admin/archive/features", featureListSchema)).features.map((f) => f.name)).not.toContain(n("bulk-b"));
      await call(`/api/admin/projects/${project}/stale`, { method: "POST", body: { features: [n("bulk-a")], stale: true } }, 202);
      expect((await get(`${features}/${n("bulk-a")}`, featureSchema)).stale).toBe(true);
    });

    it("marks favorites per caller", async () => {
      await call(`${features}/${n("checkout")}/favorites`, { method: "POST" }, 200);
      expect((await get(`${features}/${n("checkout")}`, featureSchema)).favorite).toBe(true);
      await call(`${features}/${n("checkout")}/favorites`, { method: "DELETE" }, 200);
      expect((await get(`${features}/${n("checkout")}`, featureSchema)).favorite).toBe(false);
      await expectError(`${features}/ghost/favorites`, { method: "POST" }, 404, "NotFoundError");
    });

    it("clones a flag (endpoint 12), replacing group ids when asked", async () => {
      await call(
        `${features}/${n("rollout")}/environments/development/variants`,
        { method: "PUT", body: [{ name: "v", weight: 0, weightType: "variable", stickiness: "default" }] },
        200,
      );
      const copy = await call(
        `${features}/${n("rollout")}/clone`,
        { method: "POST", body: { name: n("rollout-copy") } },
        201,
        featureSchema,
      );
      const dev = copy.environments?.find((e) => e.name === "development");
      expect(dev).toMatchObject({ enabled: false, variantCount: 1 });
      expect(dev?.strategies?.[0]?.parameters?.groupId).toBe(n("rollout-copy"));
      const original = (await get(`${features}/${n("rollout")}`, featureSchema)).environments?.find((e) => e.name === "development");
      expect(dev?.strategies?.[0]?.id).not.toBe(original?.strategies?.[0]?.id);
      const keep = await call(
        `${features}/${n("rollout")}/clone`,
        { method: "POST", body: { name: n("rollout-keep"), replaceGroupId: false } },
        201,
        featureSchema,
      );
      expect(keep.environments?.find((e) => e.name === "development")?.strategies?.[0]?.parameters?.groupId).toBe(n("rollout"));
      await expectError(`${features}/${n("rollout")}/clone`, { method: "POST", body: { name: n("checkout") } }, 409, "NameExistsError");
      await expectError(`${features}/${n("rollout")}/clone`, { method: "POST", body: {} }, 400, "ValidationError");
      await expectError(`${features}/ghost/clone`, { method: "POST", body: { name: n("g2") } }, 404, "NotFoundError");
    });

    it("lists and searches flags", async () => {
      const all = await get("/api/admin/features", featureListSchema);
      expect(all.features.map((f) => f.name)).toContain(n("checkout"));
      const found = await get(`/api/admin/search/features?query=roll&project=IS:${project}`, featureSearchResultSchema);
      expect(found.features.map((f) => f.name).sort()).toEqual([n("rollout"), n("rollout-copy"), n("rollout-keep")]);
      expect(found.total).toBe(3);
      const stale = await get("/api/admin/search/features?state=IS:stale", featureSearchResultSchema);
      expect(stale.features.every((f) => f.stale)).toBe(true);
    });

    it("lists collaborators most recent first", async () => {
      const flag = await get(`${features}/${n("checkout")}`, featureSchema);
      expect(flag.collaborators?.users.length).toBeGreaterThanOrEqual(1);
      expect(flag.collaborators?.users[0]?.name).not.toBe("");
    });
  });

  describe("strategies", () => {
    const path = `${features}/${n("strat")}/environments/development/strategies`;
    beforeAll(() => createFlag(n("strat")));

    it("adds, reads, updates, patches, reorders and removes strategies", async () => {
      const a = await call(path, { method: "POST", body: strategyBody }, 200, savedStrategySchema);
      expect(a).toMatchObject({ ...strategyBody, featureName: n("strat"), disabled: false, sortOrder: 0, segments: [], variants: [] });
      const b = await call(path, { method: "POST", body: { name: "default", parameters: { n: 5 } } }, 200, savedStrategySchema);
      expect(b.parameters).toEqual({ n: "5" });
      expect((await get(path, z.array(savedStrategySchema))).map((s) => s.id)).toEqual([a.id, b.id]);
      expect(await get(`${path}/${a.id}`, savedStrategySchema)).toEqual(a);

      const updated = await call(
        `${path}/${a.id}`,
        { method: "PUT", body: { ...strategyBody, title: "renamed" } },
        200,
        savedStrategySchema,
      );
      expect(updated.title).toBe("renamed");
      const patched = await call(
        `${path}/${a.id}`,
        { method: "PATCH", body: [{ op: "replace", path: "/disabled", value: true }] },
        200,
        savedStrategySchema,
      );
      expect(patched).toMatchObject({ disabled: true, title: "renamed" });

      await call(
        `${path}/set-sort-order`,
        {
          method: "POST",
          body: [
            { id: a.id, sortOrder: 5 },
            { id: b.id, sortOrder: 1 },
          ],
        },
        200,
      );
      expect((await get(path, z.array(savedStrategySchema))).map((s) => s.id)).toEqual([b.id, a.id]);
      await expectError(`${path}/set-sort-order`, { method: "POST", body: [{ id: "nope", sortOrder: 1 }] }, 404, "NotFoundError");

      await call(`${path}/${b.id}`, { method: "DELETE" }, 200);
      await expectError(`${path}/${b.id}`, {}, 404, "NotFoundError");
      await expectError(`${path}/${b.id}`, { method: "DELETE" }, 404, "NotFoundError");
    });

    it.each([
      ["an undefined strategy", { name: "noSuchStrategy" }],
      ["NUM_ with a word", { name: "default", constraints: [{ contextName: "age", operator: "NUM_GT", value: "old" }] }],
      ["DATE_ with a non-date", { name: "default", constraints: [{ contextName: "currentTime", operator: "DATE_AFTER", value: "soon" }] }],
      ["SEMVER_ with a range", { name: "default", constraints: [{ contextName: "v", operator: "SEMVER_EQ", value: "1.x" }] }],
      ["IN without values", { name: "default", constraints: [{ contextName: "userId", operator: "IN", values: [] }] }],
      ["an unknown operator", { name: "default", constraints: [{ contextName: "userId", operator: "LIKE", values: ["a"] }] }],
      ["an unknown segment", { name: "default", segments: [424242] }],
      [
        "variants without a variable one",
        { name: "default", variants: [{ name: "a", weight: 500, weightType: "fix", stickiness: "default" }] },
      ],
      [
        "fix variants summing to 1000",
        {
          name: "default",
          variants: [
            { name: "a", weight: 1000, weightType: "fix", stickiness: "default" },
            { name: "b", weight: 0, weightType: "variable", stickiness: "default" },
          ],
        },
      ],
      [
        "a variant weight over 1000",
        { name: "default", variants: [{ name: "a", weight: 1001, weightType: "variable", stickiness: "default" }] },
      ],
    ])("refuses %s with 400 and stores nothing", async (_case, body) => {
      const before = await get(path);
      await expectError(path, { method: "POST", body }, 400, "ValidationError");
      expect(await get(path)).toEqual(before);
    });

    it("answers 401, 403, 404 and 415 on strategy paths", async () => {
      await expectGuarded(path, { method: "POST", body: strategyBody });
      await expectError(
        `${features}/ghost/environments/development/strategies`,
        { method: "POST", body: strategyBody },
        404,
        "NotFoundError",
      );
      await expectError(`${features}/${n("strat")}/environments/ghost/strategies`, {}, 404, "NotFoundError");
      await expectError(path, { method: "POST", body: "x", headers: { "content-type": "text/plain" } }, 415, "ContentTypeerror");
    });
  });

  describe("variants", () => {
    const path = `${features}/${n("colors")}/environments/development/variants`;
    beforeAll(() => createFlag(n("colors")));

    it("replaces all variants (endpoint 6), spreading weights to 1000 in the given order, then sorting by name as Unleash does", async () => {
      const variable = (name: string) => ({ name, weight: 0, weightType: "variable", stickiness: "default" });
      const body = await call(
        path,
        {
          method: "PUT",
          body: [
            variable("red"),
            variable("blue"),
            { name: "fixed", weight: 100, weightType: "fix", stickiness: "default", payload: { type: "string", value: "x" } },
            { ...variable("green"), overrides: [{ contextName: "userId", values: ["u1"] }] },
          ],
        },
        200,
        featureVariantsResponseSchema,
      );
      expect(body.version).toBe(1);
      expect(body.variants.map((v) => [v.name, v.weight, v.weightType])).toEqual([
        ["blue", 300, "variable"],
        ["fixed", 100, "fix"],
        ["green", 300, "variable"],
        ["red", 300, "variable"],
      ]);
      expect(body.variants.find((v) => v.name === "green")?.overrides).toEqual([{ contextName: "userId", values: ["u1"] }]);
      const odd = await call(
        path,
        { method: "PUT", body: [variable("c"), variable("a"), variable("b")] },
        200,
        featureVariantsResponseSchema,
      );
      expect(odd.variants.map((v) => [v.name, v.weight])).toEqual([
        ["a", 333],
        ["b", 333],
        ["c", 334],
      ]);
      expect(await get(path, featureVariantsResponseSchema)).toEqual(odd);
      const flag = await get(`${features}/${n("colors")}`, featureSchema);
      expect(flag.environments?.find((e) => e.name === "development")?.variantCount).toBe(3);
    });

    it.each([
      ["no variable variant", [{ name: "a", weight: 100, weightType: "fix", stickiness: "default" }]],
      [
        "fix weights reaching 1000",
        [
          { name: "a", weight: 1000, weightType: "fix" },
          { name: "b", weight: 0, weightType: "variable" },
        ],
      ],
      [
        "duplicate names",
        [
          { name: "a", weight: 0, weightType: "variable" },
          { name: "a", weight: 0, weightType: "variable" },
        ],
      ],
      ["a weight over 1000", [{ name: "a", weight: 1200, weightType: "variable" }]],
      ["not a list", { name: "a" }],
    ])("refuses %s with 400, leaving the variants unchanged", async (_case, body) => {
      const before = await get(path);
      await expectError(path, { method: "PUT", body }, 400, "ValidationError");
      expect(await get(path)).toEqual(before);
    });

    it("guards endpoint 6 and works on a flag that never had variants", async () => {
      await expectGuarded(path, { method: "PUT", body: [] });
      await createFlag(n("fresh-variants"));
      const res = await call(
        `${features}/${n("fresh-variants")}/environments/production/variants`,
        { method: "PUT", body: [{ name: "only", weight: 0, weightType: "variable", stickiness: "default" }] },
        200,
        featureVariantsResponseSchema,
      );
      expect(res.variants).toEqual([{ name: "only", weight: 1000, weightType: "variable", stickiness: "default" }]);
      await call(`${features}/${n("fresh-variants")}/environments/production/variants`, { method: "PUT", body: [] }, 200);
      expect(
        (await get(`${features}/${n("fresh-variants")}/environments/production/variants`, featureVariantsResponseSchema)).variants,
      ).toEqual([]);
    });

    it("patches variants with JSON patch and copies them to several environments", async () => {
      const patched = await call(path, { method: "PATCH", body: [{ op: "remove", path: "/2" }] }, 200, featureVariantsResponseSchema);
      expect(patched.variants.map((v) => [v.name, v.weight])).toEqual([
        ["a", 500],
        ["b", 500],
      ]);
      await expectError(path, { method: "PATCH", body: [{ op: "remove", path: "/9" }] }, 400, "ValidationError");
      const batch = await call(
        `${features}/${n("colors")}/variants-batch`,
        {
          method: "PUT",
          body: {
            variants: [{ name: "x", weight: 0, weightType: "variable", stickiness: "default" }],
            environments: ["development", "production"],
          },
        },
        200,
        featureVariantsResponseSchema,
      );
      expect(batch.variants).toHaveLength(1);
      const flag = await get(`${features}/${n("colors")}`, featureSchema);
      expect(flag.environments?.map((e) => e.variants?.map((v) => v.name))).toEqual([["x"], ["x"]]);
      await expectError(
        `${features}/${n("colors")}/variants-batch`,
        { method: "POST", body: { variants: [], environments: ["development", "ghost"] } },
        404,
        "NotFoundError",
      );
    });
  });
});

describe("events", () => {
  it("records Unleash's event types for the mutations", async () => {
    const res = await vexil.api("/api/admin/events?limit=500");
    if (res.status !== 200) return expect.soft(res.status, "event log route not served yet").toBe(200);
    const { events } = (await res.json()) as { events: { type: string }[] };
    const types = new Set(events.map((e) => e.type));
    for (const type of [
      "feature-created",
      "feature-metadata-updated",
      "feature-stale-on",
      "feature-archived",
      "feature-revived",
      "feature-deleted",
      "feature-environment-enabled",
      "feature-environment-disabled",
      "feature-strategy-add",
      "feature-strategy-update",
      "feature-strategy-remove",
      "feature-environment-variants-updated",
      "feature-favorited",
      "project-created",
      "project-updated",
      "project-deleted",
      "environment-created",
      "default-strategy-updated",
    ]) {
      expect(types, type).toContain(type);
    }
  });
});
