import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  featureEnvironmentSchema,
  featureListSchema,
  featureSchema,
  featureSearchResultSchema,
  healthReportSchema,
  projectOverviewSchema,
  projectSummarySchema,
  savedStrategySchema,
} from "@vexil/contracts";
import { adminExpect, strategyBody } from "../src/admin-expect.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";

/**
 * Flags through the admin API of the compiled gateway, in `default` and in a project created while
 * Vexil runs (with the environments every project starts with here): the project overview and
 * health report, creating, updating, patching, enabling, archiving, reviving, cloning, listing
 * and searching flags. Flag names are unique across projects, so each project's flags carry its
 * name.
 */
let vexil: TestSystem;
/** A project without flags that the several-project tokens include. */
const elsewhere = "flags-elsewhere";
beforeAll(async () => {
  vexil = await startTestSystem();
  await vexil.createProject(elsewhere);
});
afterAll(() => vexil.stop());

const { call, get, expectError, expectGuarded, expectEventTypes } = adminExpect(() => vexil);

describe.each(["default", "flags-fresh"])("flags in project %s", (project) => {
  const features = `/api/admin/projects/${project}/features`;
  const n = (name: string) => (project === "default" ? name : `${project}-${name}`);
  const createFlag = (name: string, body: Record<string, unknown> = {}) =>
    call(features, { method: "POST", body: { name, ...body } }, 201, featureSchema);
  beforeAll(async () => {
    if (project !== "default") await vexil.createProject(project, { environments: ["development", "production"] });
  });

  describe("the project overview and health report", () => {
    it("serves the overview (GET /api/admin/projects/:projectId and .../overview) and the health report (GET /api/admin/projects/:projectId/health-report)", async () => {
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
      // The overview without flags: the same figures, the live flags counted per type.
      const { features: listed, potentiallyStaleCount: _p, activeCount: _a, staleCount: _s, ...figures } = report;
      const summary = await get(`/api/admin/projects/${project}/overview`, projectSummarySchema);
      expect(summary).toEqual({ ...figures, technicalDebt: 100 - report.health, featureTypeCounts: expect.any(Array) });
      const perType = Object.fromEntries(summary.featureTypeCounts.map(({ type, count }) => [type, count]));
      expect(perType).toEqual(
        listed.reduce<Record<string, number>>((counts, { type = "" }) => ({ ...counts, [type]: (counts[type] ?? 0) + 1 }), {}),
      );
      await expectGuarded(`/api/admin/projects/${project}/health-report`);
      await expectGuarded(`/api/admin/projects/${project}/overview`);
      await expectGuarded(`/api/admin/projects/${project}`);
      await expectError("/api/admin/projects/ghost/overview", {}, 404, "NotFoundError");
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

    it("updates with PUT and PATCH (JSON patch) /api/admin/projects/:projectId/features/:featureName, refusing a bad patch whole", async () => {
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

    it("enables an environment with POST /api/admin/projects/:projectId/features/:featureName/environments/:environment/on, with the default strategy, disables it again", async () => {
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

    it("serves the switch to frontend tokens for this project, for it and another, and for every project", async () => {
      const tokens = [
        await vexil.createApiToken({ type: "frontend", projects: [project] }),
        await vexil.createApiToken({ type: "frontend", projects: [project, elsewhere] }),
        await vexil.createApiToken({ type: "frontend", projects: ["*"] }),
      ];
      /** Whether each token's /api/frontend lists the flag (on for everyone: a 100% rollout). */
      const served = () =>
        Promise.all(
          tokens.map(async (token) => {
            const { toggles } = await vexil.expectStatus("/api/frontend", { token }, 200);
            return (toggles as Array<{ name: string }>).some((t) => t.name === n("rollout"));
          }),
        );
      const poll = { timeout: 60_000, interval: 100 };
      await expect.poll(served, poll).toEqual([true, true, true]);
      await call(`${features}/${n("rollout")}/environments/development/off`, { method: "POST" }, 200);
      await expect.poll(served, poll).toEqual([false, false, false]);
      await call(`${features}/${n("rollout")}/environments/development/on`, { method: "POST" }, 200);
      await expect.poll(served, poll).toEqual([true, true, true]);
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

    it("revives a flag off in every environment where it was on when archived, as Unleash does", async () => {
      await createFlag(n("revived-off"));
      for (const environment of ["development", "production"])
        await call(`${features}/${n("revived-off")}/environments/${environment}/on`, { method: "POST" }, 200);
      await call(`${features}/${n("revived-off")}`, { method: "DELETE" }, 202);
      await call(`/api/admin/archive/revive/${n("revived-off")}`, { method: "POST" }, 200);
      const revived = await get(`${features}/${n("revived-off")}`, featureSchema);
      expect(revived.environments?.map((e) => [e.name, e.enabled])).toEqual([
        ["development", false],
        ["production", false],
      ]);
      // The same through the project's bulk revive; the strategies stay for when it is switched on again.
      await call(`${features}/${n("revived-off")}/environments/production/on`, { method: "POST" }, 200);
      await call(`/api/admin/projects/${project}/archive`, { method: "POST", body: { features: [n("revived-off")] } }, 202);
      await call(`/api/admin/projects/${project}/revive`, { method: "POST", body: { features: [n("revived-off")] } }, 200);
      const again = await get(`${features}/${n("revived-off")}`, featureSchema);
      expect(again.enabled).toBe(false);
      expect(again.environments?.find((e) => e.name === "production")?.strategies).toHaveLength(1);
      // Reviving records that, and no environment change: the flag was served nowhere while archived.
      const { events } = await call(`/api/admin/events/${n("revived-off")}`, {}, 200);
      expect((events as Array<{ type: string }>).slice(0, 2).map((e) => e.type)).toEqual(["feature-revived", "feature-archived"]);
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

    it("clones a flag with POST /api/admin/projects/:projectId/features/:featureName/clone, replacing group ids when asked", async () => {
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

    it("filters the search by tag, with Unleash's tag operators", async () => {
      const board = `${project}-board`;
      await call(`/api/admin/features/${n("rollout")}/tags`, { method: "POST", body: { type: "simple", value: board } }, 201);
      for (const value of [board, `${project}-second`]) {
        await call(`/api/admin/features/${n("rollout-copy")}/tags`, { method: "POST", body: { type: "simple", value } }, 201);
      }
      const search = async (tag: string, query = "") =>
        (
          await get(`/api/admin/search/features?project=IS:${project}&tag=${encodeURIComponent(tag)}${query}`, featureSearchResultSchema)
        ).features
          .map((f) => f.name)
          .sort();
      expect(await search(`simple:${board}`)).toEqual([n("rollout"), n("rollout-copy")]);
      expect(await search(`INCLUDE_ANY_OF:simple:${project}-second,simple:nothing-here`)).toEqual([n("rollout-copy")]);
      expect(await search(`INCLUDE_ALL_OF:simple:${board},simple:${project}-second`)).toEqual([n("rollout-copy")]);
      expect(await search(`DO_NOT_INCLUDE:simple:${board}`, "&query=roll")).toEqual([n("rollout-keep")]);
      expect(await search(`EXCLUDE_ALL:simple:${board},simple:${project}-second`, "&query=roll")).toEqual([
        n("rollout"),
        n("rollout-keep"),
      ]);
      await expectError("/api/admin/search/features?tag=simple", {}, 400, "ValidationError");
    });

    it("pages a search in the order flags were created, with the total of all matches, and filters by type and description", async () => {
      const prefix = n("paged");
      for (let i = 0; i < 5; i++) {
        await createFlag(`${prefix}-${i}`, {
          type: i % 2 === 0 ? "operational" : "release",
          description: i === 3 ? "Spring Sale banner" : null,
        });
      }
      const search = (params: string) => get(`/api/admin/search/features?project=IS:${project}&${params}`, featureSearchResultSchema);
      const pages = [
        await search(`query=${prefix}&limit=2`),
        await search(`query=${prefix}&limit=2&offset=2`),
        await search(`query=${prefix}&limit=2&offset=4`),
      ];
      expect(pages.map((page) => page.features.map((f) => f.name))).toEqual([
        [`${prefix}-0`, `${prefix}-1`],
        [`${prefix}-2`, `${prefix}-3`],
        [`${prefix}-4`],
      ]);
      expect(pages.map((page) => page.total)).toEqual([5, 5, 5]);
      const operational = await search(`query=${prefix}&type=IS:operational`);
      expect(operational.features.map((f) => f.name)).toEqual([`${prefix}-0`, `${prefix}-2`, `${prefix}-4`]);
      // A part of the description, in any case; characters that mean something in a pattern are taken as they are.
      expect((await search("query=sPRING%20sale")).features.map((f) => f.name)).toEqual([`${prefix}-3`]);
      expect((await search(`query=${prefix}.1`)).total).toBe(0);
      expect((await search("query=.*")).total).toBe(0);
      expect((await search(`query=${prefix}&offset=10`)).features).toEqual([]);
    });

    it("lists a parent's dependants in every flag of a list and a search", async () => {
      const [parent, child] = [n("list-parent"), n("list-child")];
      await createFlag(parent);
      await createFlag(child);
      await call(`${features}/${child}/dependencies`, { method: "POST", body: { feature: parent } }, 200);
      const found = await get(`/api/admin/search/features?query=${n("list-")}&project=IS:${project}`, featureSearchResultSchema);
      expect(found.features.map((f) => [f.name, f.children])).toEqual([
        [parent, [child]],
        [child, []],
      ]);
      const listed = await get(features, featureListSchema);
      expect(listed.features.find((f) => f.name === parent)?.children).toEqual([child]);
    });

    it("lists collaborators most recent first", async () => {
      const flag = await get(`${features}/${n("checkout")}`, featureSchema);
      expect(flag.collaborators?.users.length).toBeGreaterThanOrEqual(1);
      expect(flag.collaborators?.users[0]?.name).not.toBe("");
    });
  });
});

describe("events", () => {
  it("records Unleash's event types for the changes to flags", async () => {
    await expectEventTypes([
      "feature-created",
      "feature-metadata-updated",
      "feature-stale-on",
      "feature-archived",
      "feature-revived",
      "feature-deleted",
      "feature-environment-enabled",
      "feature-environment-disabled",
      "feature-favorited",
    ]);
  });
});
