import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { featureSchema, featureVariantsResponseSchema, savedStrategySchema } from "@vexil/contracts";
import { z } from "zod";
import { adminExpect, strategyBody } from "../src/admin-expect.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";

/**
 * Strategies and variants of flags through the admin API of the compiled gateway, in `default` and
 * in a project created while Vexil runs: adding, updating, patching, reordering and removing
 * strategies; replacing, patching and copying variants. Flag names are unique across projects, so
 * each project's flags carry its name.
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

    it("replaces all variants with PUT /api/admin/projects/:projectId/features/:featureName/environments/:environment/variants, spreading weights to 1000 in the given order, then sorting by name as Unleash does", async () => {
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

    it("guards PUT .../environments/:environment/variants and works on a flag that never had variants", async () => {
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
      // POST does the same as PUT (Unleash serves both), here for one environment of the two.
      const posted = await call(
        `${features}/${n("colors")}/variants-batch`,
        {
          method: "POST",
          body: {
            variants: [
              { name: "y", weight: 0, weightType: "variable", stickiness: "default" },
              { name: "z", weight: 0, weightType: "variable", stickiness: "default" },
            ],
            environments: ["production"],
          },
        },
        200,
        featureVariantsResponseSchema,
      );
      expect(posted.variants.map((v) => [v.name, v.weight])).toEqual([
        ["y", 500],
        ["z", 500],
      ]);
      const after = await get(`${features}/${n("colors")}`, featureSchema);
      expect(after.environments?.map((e) => [e.name, e.variants?.map((v) => v.name)])).toEqual([
        ["development", ["x"]],
        ["production", ["y", "z"]],
      ]);
      await expectError(
        `${features}/${n("colors")}/variants-batch`,
        { method: "POST", body: { variants: [], environments: ["development", "ghost"] } },
        404,
        "NotFoundError",
      );
    });
  });
  describe("as the SDKs are served them", () => {
    /** What an SDK evaluates from a strategy (parameters as the strings SDKs read); the rest is for people. */
    const evaluated = (s: { id?: string; name: string; parameters?: Record<string, unknown>; constraints?: unknown[] }) => ({
      id: s.id,
      name: s.name,
      parameters: Object.fromEntries(Object.entries(s.parameters ?? {}).map(([key, value]) => [key, String(value)])),
      constraints: s.constraints,
    });

    it.each([
      { scope: "this project", projects: [project] },
      { scope: "this project and another", projects: [project, elsewhere] },
      { scope: "every project", projects: ["*"] },
    ])("client tokens for $scope get the enabled strategies in order and the variants the admin API shows", async ({ projects }) => {
      const token = await vexil.createApiToken({ type: "client", projects });
      let compared = 0;
      for (const name of [n("strat"), n("colors")]) {
        const development = (await get(`${features}/${name}`, featureSchema)).environments!.find((e) => e.name === "development")!;
        const expected = {
          strategies: development
            .strategies!.filter((s) => !s.disabled)
            .sort((a, b) => (a.sortOrder ?? 0) - (b.sortOrder ?? 0))
            .map(evaluated),
          variants: development.variants,
        };
        await expect
          .poll(
            async () => {
              const served = await vexil.expectStatus(
                `/api/client/features/${name}`,
                { token, headers: { "unleash-client-spec": "5.1.0" } },
                200,
              );
              return { strategies: served.strategies.map(evaluated), variants: served.variants };
            },
            { timeout: 60_000, interval: 100 },
          )
          .toEqual(expected);
        compared += expected.strategies.length + expected.variants!.length;
      }
      expect(compared, "nothing to compare: the flags have neither strategies nor variants").toBeGreaterThan(0);
    });
  });
});

describe("events", () => {
  it("records Unleash's event types for the changes to strategies and variants", async () => {
    await expectEventTypes([
      "feature-strategy-add",
      "feature-strategy-update",
      "feature-strategy-remove",
      "feature-environment-variants-updated",
    ]);
  });
});
