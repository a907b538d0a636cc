import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTagResponseSchema,
  segmentListSchema,
  segmentSchema,
  segmentStrategiesSchema,
  tagListSchema,
  tagSchema,
  tagTypeListSchema,
  tagTypeResponseSchema,
  tagTypeSchema,
} from "@vexil/contracts";
import type { z } from "zod";
import { oversize, plainTextRequest, startTestSystem, type TestSystem } from "../src/harness.js";

let vexil: TestSystem;
beforeAll(async () => {
  vexil = await startTestSystem();
  await call("/api/admin/projects", { method: "POST", body: { id: "shop", name: "Shop" } }, 201);
  await call("/api/admin/projects/default/features", { method: "POST", body: { name: "checkout" } }, 201);
  await call("/api/admin/projects/shop/features", { method: "POST", body: { name: "shop-checkout" } }, 201);
});
afterAll(() => vexil.stop());

type Init = Parameters<TestSystem["api"]>[1];
const call = <T>(path: string, init: Init, status: number, schema?: z.ZodType<T>) => vexil.expectStatus(path, init, status, schema);
const expectError = (path: string, init: Init, status: number, name: string) => vexil.expectError(path, init, status, name);

const constraint = { contextName: "userId", operator: "IN" as const, values: ["u1", "u2"] };
const listSegments = () => call("/api/admin/segments", {}, 200, segmentListSchema);

describe("segments", () => {
  let betaId: number;

  it("creates a segment with POST /api/admin/segments: 201, location, and every field of the contract", async () => {
    const res = await vexil.api("/api/admin/segments", {
      method: "POST",
      body: { name: "beta", description: "Beta users", constraints: [constraint] },
    });
    expect(res.status).toBe(201);
    const segment = segmentSchema.parse(await res.json());
    betaId = segment.id;
    expect(Number.isInteger(segment.id)).toBe(true);
    expect(res.headers.get("location")).toBe(`segments/${segment.id}`);
    expect(segment.name).toBe("beta");
    expect(segment.description).toBe("Beta users");
    expect(segment.constraints).toEqual([constraint]);
    expect(segment.project ?? null).toBeNull();
    expect(segment.usedInFeatures).toBe(0);
    expect(segment.usedInProjects).toBe(0);
    expect(typeof segment.createdBy).toBe("string");
    expect(Date.parse(segment.createdAt)).not.toBeNaN();
    const read = await call(`/api/admin/segments/${segment.id}`, {}, 200, segmentSchema);
    expect(read).toMatchObject({ id: segment.id, name: "beta", description: "Beta users", constraints: [constraint] });
  });

  it("gives integer ids from a sequence and lists segments", async () => {
    const second = await call("/api/admin/segments", { method: "POST", body: { name: "staff", constraints: [] } }, 201, segmentSchema);
    expect(second.id).toBeGreaterThan(betaId);
    expect((await listSegments()).segments.map((s) => s.name)).toEqual(expect.arrayContaining(["beta", "staff"]));
  });

  it("updates with PUT /api/admin/segments/:id, 204: absent project becomes null, absent description is untouched", async () => {
    await call(`/api/admin/segments/${betaId}`, { method: "PUT", body: { name: "beta", project: "shop", constraints: [constraint] } }, 204);
    expect((await call(`/api/admin/segments/${betaId}`, {}, 200, segmentSchema)).project).toBe("shop");
    const res = await vexil.api(`/api/admin/segments/${betaId}`, { method: "PUT", body: { name: "beta-testers", constraints: [] } });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    const updated = await call(`/api/admin/segments/${betaId}`, {}, 200, segmentSchema);
    expect(updated).toMatchObject({ name: "beta-testers", description: "Beta users", constraints: [] });
    expect(updated.project ?? null).toBeNull();
    await call(`/api/admin/segments/${betaId}`, { method: "PUT", body: { name: "beta", constraints: [constraint] } }, 204);
  });

  it("lists a project's segments: global ones and its own", async () => {
    const own = await call(
      "/api/admin/segments",
      { method: "POST", body: { name: "shop-vip", project: "shop", constraints: [] } },
      201,
      segmentSchema,
    );
    const shop = await call("/api/admin/projects/shop/segments", {}, 200, segmentListSchema);
    expect(shop.segments.map((s) => s.name)).toEqual(expect.arrayContaining(["beta", "shop-vip"]));
    const fallback = await call("/api/admin/projects/default/segments", {}, 200, segmentListSchema);
    expect(fallback.segments.map((s) => s.name)).not.toContain("shop-vip");
    await expectError("/api/admin/projects/nope/segments", {}, 404, "NotFoundError");
    await call(`/api/admin/segments/${own.id}`, { method: "DELETE" }, 204);
  });

  it("counts usage, lists the strategies using it, and refuses to delete it while used (409)", async () => {
    const strategy = await call(
      "/api/admin/projects/default/features/checkout/environments/development/strategies",
      { method: "POST", body: { name: "default", segments: [betaId] } },
      200,
    );
    const [segment] = (await listSegments()).segments.filter((s) => s.id === betaId);
    expect(segment).toMatchObject({ usedInFeatures: 1, usedInProjects: 1 });
    const uses = await call(`/api/admin/segments/${betaId}/strategies`, {}, 200, segmentStrategiesSchema);
    expect(uses.strategies).toEqual([
      {
        id: (strategy as { id: string }).id,
        projectId: "default",
        featureName: "checkout",
        strategyName: "default",
        environment: "development",
      },
    ]);
    const before = await listSegments();
    const refused = await expectError(`/api/admin/segments/${betaId}`, { method: "DELETE" }, 409, "NameExistsError");
    expect(refused.message).toContain("checkout");
    expect(await listSegments()).toEqual(before);
    // Moving it into another project than the flag using it is refused as well.
    await expectError(
      `/api/admin/segments/${betaId}`,
      { method: "PUT", body: { name: "beta", project: "shop", constraints: [] } },
      400,
      "ValidationError",
    );
  });

  it("deletes an unused segment (204), then 404s", async () => {
    const temp = await call("/api/admin/segments", { method: "POST", body: { name: "temp", constraints: [] } }, 201, segmentSchema);
    await call(`/api/admin/segments/${temp.id}`, { method: "DELETE" }, 204);
    await expectError(`/api/admin/segments/${temp.id}`, {}, 404, "NotFoundError");
    await expectError(`/api/admin/segments/${temp.id}`, { method: "DELETE" }, 404, "NotFoundError");
    await expectError(`/api/admin/segments/${temp.id}`, { method: "PUT", body: { name: "temp", constraints: [] } }, 404, "NotFoundError");
  });

  describe("refuses bad requests and leaves the store unchanged", () => {
    it.each<[string, unknown, string]>([
      [
        "a NUM constraint without a number",
        { name: "n1", constraints: [{ contextName: "age", operator: "NUM_GT", value: "old" }] },
        "body.constraints.0.value",
      ],
      [
        "a DATE constraint without an ISO date",
        { name: "n2", constraints: [{ contextName: "currentTime", operator: "DATE_AFTER", value: "soon" }] },
        "body.constraints.0.value",
      ],
      [
        "a SEMVER constraint without a version",
        { name: "n3", constraints: [{ contextName: "v", operator: "SEMVER_EQ", value: "1.x" }] },
        "body.constraints.0.value",
      ],
      [
        "IN without values",
        { name: "n4", constraints: [constraint, { contextName: "userId", operator: "IN", values: [] }] },
        "body.constraints.1.values",
      ],
      [
        "an unknown operator",
        { name: "n5", constraints: [{ contextName: "userId", operator: "LIKE", values: ["a"] }] },
        "body.constraints.0.operator",
      ],
      ["a missing name", { constraints: [] }, "body.name"],
      ["an unknown project", { name: "n6", project: "nope", constraints: [] }, "body.project"],
      [
        "more than 1000 constraint values",
        { name: "n7", constraints: [{ contextName: "userId", operator: "IN", values: Array.from({ length: 1001 }, (_, i) => `u${i}`) }] },
        "body.constraints",
      ],
    ])("400 for %s", async (_case, body, path) => {
      const before = await listSegments();
      const error = await expectError("/api/admin/segments", { method: "POST", body }, 400, "ValidationError");
      expect(error.details?.map((d) => d.path)).toContain(path);
      expect(await listSegments()).toEqual(before);
    });

    it("409 for a taken name, on create and on rename", async () => {
      const before = await listSegments();
      await expectError("/api/admin/segments", { method: "POST", body: { name: "beta", constraints: [] } }, 409, "NameExistsError");
      await expectError("/api/admin/segments/validate", { method: "POST", body: { name: "beta" } }, 409, "NameExistsError");
      await call("/api/admin/segments/validate", { method: "POST", body: { name: "free-name" } }, 204);
      const staff = before.segments.find((s) => s.name === "staff");
      await expectError(
        `/api/admin/segments/${staff?.id}`,
        { method: "PUT", body: { name: "beta", constraints: [] } },
        409,
        "NameExistsError",
      );
      expect(await listSegments()).toEqual(before);
    });

    it("401 without a token, 403 with a client token, 400 for a non-integer id", async () => {
      await expectError(
        "/api/admin/segments",
        { method: "POST", token: null, body: { name: "x", constraints: [] } },
        401,
        "AuthenticationRequired",
      );
      await expectError(
        "/api/admin/segments",
        { method: "POST", token: vexil.tokens.client, body: { name: "x", constraints: [] } },
        403,
        "NoAccessError",
      );
      await expectError(
        `/api/admin/segments/${betaId}`,
        { method: "PUT", token: null, body: { name: "x", constraints: [] } },
        401,
        "AuthenticationRequired",
      );
      await expectError(
        `/api/admin/segments/${betaId}`,
        { method: "PUT", token: vexil.tokens.client, body: { name: "x", constraints: [] } },
        403,
        "NoAccessError",
      );
      await expectError("/api/admin/segments/abc", {}, 400, "ValidationError");
    });

    it("413 over 100 kB and 415 for text/plain, on create and update", async () => {
      const before = await listSegments();
      await expectError(
        "/api/admin/segments",
        { method: "POST", body: oversize({ name: "big", constraints: [] }) },
        413,
        "ContentTooLarge",
      );
      await expectError("/api/admin/segments", plainTextRequest("POST"), 415, "ContentTypeerror");
      await expectError(
        `/api/admin/segments/${betaId}`,
        { method: "PUT", body: oversize({ name: "big", constraints: [] }) },
        413,
        "ContentTooLarge",
      );
      await expectError(`/api/admin/segments/${betaId}`, plainTextRequest("PUT"), 415, "ContentTypeerror");
      expect(await listSegments()).toEqual(before);
    });
  });

  it("refuses a strategy that references an unknown segment", async () => {
    await expectError(
      "/api/admin/projects/default/features/checkout/environments/development/strategies",
      { method: "POST", body: { name: "default", segments: [99999] } },
      400,
      "ValidationError",
    );
  });
});

describe.each(["default", "shop"])("a segment on a flag in project %s, as the SDKs get it", (project) => {
  const flag = `${project}-segmented`;
  let segmentId: number;
  beforeAll(async () => {
    const values = ["seg-in-1", "seg-in-2"];
    const body = { name: `sdk-${project}`, constraints: [{ ...constraint, values }] };
    segmentId = (await call("/api/admin/segments", { method: "POST", body }, 201, segmentSchema)).id;
    await call(`/api/admin/projects/${project}/features`, { method: "POST", body: { name: flag } }, 201);
    await call(
      `/api/admin/projects/${project}/features/${flag}/environments/development/strategies`,
      {
        method: "POST",
        body: { name: "flexibleRollout", parameters: { rollout: "100", stickiness: "default", groupId: flag }, segments: [segmentId] },
      },
      200,
    );
    await call(`/api/admin/projects/${project}/features/${flag}/environments/development/on`, { method: "POST" }, 200);
  });

  it.each([
    { scope: "this project", projects: [project], sees: true },
    { scope: "this project and another", projects: [project, project === "shop" ? "default" : "shop"], sees: true },
    { scope: "every project", projects: ["*"], sees: true },
    { scope: "only another project", projects: [project === "shop" ? "default" : "shop"], sees: false },
  ])("through tokens for $scope", async ({ projects, sees }) => {
    const client = await vexil.createApiToken({ type: "client", projects });
    const frontend = await vexil.createApiToken({ type: "frontend", projects });
    const modern = { token: client, headers: { "unleash-client-spec": "5.1.0" } };
    type Served = { features: Array<{ name: string; strategies: Array<{ segments?: number[] }> }>; segments?: Array<{ id: number }> };
    await expect
      .poll(async () => ((await call("/api/client/features", modern, 200)) as Served).features.some((f) => f.name === flag), {
        timeout: 60_000,
      })
      .toBe(sees);
    const served = (await call("/api/client/features", modern, 200)) as Served;
    if (sees) {
      expect(served.features.find((f) => f.name === flag)!.strategies[0]!.segments).toEqual([segmentId]);
      expect(served.segments?.map((s) => s.id)).toContain(segmentId);
    }
    const frontendNames = async (userId: string) =>
      ((await call(`/api/frontend?userId=${userId}`, { token: frontend }, 200)) as { toggles: Array<{ name: string }> }).toggles.map(
        (t) => t.name,
      );
    await expect
      .poll(() => frontendNames("seg-in-1"), { timeout: 60_000 })
      .toEqual(sees ? expect.arrayContaining([flag]) : expect.not.arrayContaining([flag]));
    expect(await frontendNames("outsider")).not.toContain(flag);
  });
});

describe("tag types", () => {
  const listTypes = () => call("/api/admin/tag-types", {}, 200, tagTypeListSchema);

  it("ships Unleash's simple type", async () => {
    const { version, tagTypes } = await listTypes();
    expect(version).toBe(1);
    expect(tagTypes).toContainEqual(expect.objectContaining({ name: "simple", description: "Used to simplify filtering of features" }));
    expect((await call("/api/admin/tag-types/simple", {}, 200, tagTypeResponseSchema)).tagType.name).toBe("simple");
  });

  it("creates (201 + location), validates, updates and deletes a type", async () => {
    const res = await vexil.api("/api/admin/tag-types", {
      method: "POST",
      body: { name: "team", description: "Owning team", icon: "group" },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("location")).toBe("tag-types/team");
    expect(tagTypeSchema.parse(await res.json())).toEqual({ name: "team", description: "Owning team", icon: "group", color: null });
    await expectError("/api/admin/tag-types", { method: "POST", body: { name: "team" } }, 409, "NameExistsError");
    await expectError("/api/admin/tag-types/validate", { method: "POST", body: { name: "team" } }, 409, "NameExistsError");
    expect(await call("/api/admin/tag-types/validate", { method: "POST", body: { name: "area" } }, 200)).toEqual({
      valid: true,
      tagType: { name: "area" },
    });
    await call("/api/admin/tag-types/team", { method: "PUT", body: { description: "Team that owns it" } }, 200);
    expect((await call("/api/admin/tag-types/team", {}, 200, tagTypeResponseSchema)).tagType).toMatchObject({
      description: "Team that owns it",
      icon: "group",
    });
    await call("/api/admin/tags", { method: "POST", body: { type: "team", value: "payments" } }, 201);
    await call("/api/admin/tag-types/team", { method: "DELETE" }, 200);
    await expectError("/api/admin/tag-types/team", {}, 404, "NotFoundError");
    await expectError("/api/admin/tags/team", {}, 404, "NotFoundError");
    await expectError("/api/admin/tag-types/team", { method: "DELETE" }, 404, "NotFoundError");
  });

  it("refuses a name that is not URL friendly", async () => {
    const before = await listTypes();
    await expectError("/api/admin/tag-types", { method: "POST", body: { name: "has space" } }, 400, "ValidationError");
    expect(await listTypes()).toEqual(before);
  });
});

describe("tags: /api/admin/tags", () => {
  const listTags = () => call("/api/admin/tags", {}, 200, tagListSchema);

  it("creates a tag: 201, {version, tag}, location, value trimmed", async () => {
    const res = await vexil.api("/api/admin/tags", { method: "POST", body: { value: "  release-1  ", type: "simple" } });
    expect(res.status).toBe(201);
    expect(res.headers.get("location")).toBe("tags/simple/release-1");
    const body = createTagResponseSchema.parse(await res.json());
    expect(body).toEqual({ version: 1, tag: { value: "release-1", type: "simple" } });
    expect((await listTags()).tags).toContainEqual({ value: "release-1", type: "simple" });
    expect((await call("/api/admin/tags/simple", {}, 200, tagListSchema)).tags).toContainEqual({ value: "release-1", type: "simple" });
    expect((await call("/api/admin/tags/simple/release-1", {}, 200, createTagResponseSchema)).tag.value).toBe("release-1");
  });

  it.each([
    ["a one-character value", { value: "x", type: "simple" }],
    ["a 51-character value", { value: "x".repeat(51), type: "simple" }],
    ["only whitespace", { value: "     ", type: "simple" }],
    ["a missing value", { type: "simple" }],
    // As Unleash 8.2.0 answers it (the harness in test/parity compares the two).
    ["a missing type", { value: "untyped" }],
    ["an unknown type", { value: "fine", type: "no-such-type" }],
  ])("400 for %s, store unchanged", async (_case, body) => {
    const before = await listTags();
    await expectError("/api/admin/tags", { method: "POST", body }, 400, "ValidationError");
    expect(await listTags()).toEqual(before);
  });

  it("409 for a duplicate (after trimming), 401, 403, 413, 415", async () => {
    const before = await listTags();
    await expectError("/api/admin/tags", { method: "POST", body: { value: " release-1", type: "simple" } }, 409, "NameExistsError");
    await expectError(
      "/api/admin/tags",
      { method: "POST", token: null, body: { value: "new-tag", type: "simple" } },
      401,
      "AuthenticationRequired",
    );
    await expectError(
      "/api/admin/tags",
      { method: "POST", token: vexil.tokens.frontend, body: { value: "new-tag", type: "simple" } },
      403,
      "NoAccessError",
    );
    await expectError("/api/admin/tags", { method: "POST", body: oversize({ value: "new-tag", type: "simple" }) }, 413, "ContentTooLarge");
    await expectError("/api/admin/tags", plainTextRequest("POST"), 415, "ContentTypeerror");
    expect(await listTags()).toEqual(before);
  });

  it("deletes a tag", async () => {
    await call("/api/admin/tags", { method: "POST", body: { value: "short-lived", type: "simple" } }, 201);
    await call("/api/admin/tags/simple/short-lived", { method: "DELETE" }, 200);
    await expectError("/api/admin/tags/simple/short-lived", {}, 404, "NotFoundError");
  });
});

/** Tags on a flag in `default` and on one in a project created while Vexil runs. */
describe.each([
  { project: "default", flag: "checkout" },
  { project: "shop", flag: "shop-checkout" },
])("feature tags on a flag in project $project", ({ project, flag }) => {
  const featureTags = () => call(`/api/admin/features/${flag}/tags`, {}, 200, tagListSchema);

  it("adds (creating the tag), lists, bulk-updates and removes", async () => {
    expect(
      tagSchema.parse(await call(`/api/admin/features/${flag}/tags`, { method: "POST", body: { type: "simple", value: "web" } }, 201)),
    ).toEqual({
      type: "simple",
      value: "web",
    });
    expect((await listAllTags()).tags).toContainEqual({ type: "simple", value: "web" });
    const updated = await call(
      `/api/admin/features/${flag}/tags`,
      { method: "PUT", body: { addedTags: [{ type: "simple", value: "mobile" }], removedTags: [{ type: "simple", value: "web" }] } },
      200,
      tagListSchema,
    );
    expect(updated.tags).toEqual([{ type: "simple", value: "mobile" }]);
    const feature = await call(`/api/admin/projects/${project}/features/${flag}`, {}, 200);
    expect((feature as { tags: unknown }).tags).toEqual([{ type: "simple", value: "mobile" }]);
    await call(`/api/admin/features/${flag}/tags/simple/mobile`, { method: "DELETE" }, 200);
    expect((await featureTags()).tags).toEqual([]);
  });

  it("records feature-tagged and feature-untagged events", async () => {
    const events = (await call(`/api/admin/events?feature=${flag}`, {}, 200)) as { events: { type: string }[] };
    const types = events.events.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(["feature-tagged", "feature-untagged"]));
  });

  it("404 for an unknown flag, 400 for an unknown type, store unchanged", async () => {
    await expectError("/api/admin/features/nope/tags", {}, 404, "NotFoundError");
    await expectError("/api/admin/features/nope/tags", { method: "POST", body: { type: "simple", value: "web" } }, 404, "NotFoundError");
    const before = await featureTags();
    await expectError(
      `/api/admin/features/${flag}/tags`,
      { method: "POST", body: { type: "ghost", value: "web" } },
      400,
      "ValidationError",
    );
    await expectError(
      `/api/admin/features/${flag}/tags`,
      {
        method: "PUT",
        body: {
          addedTags: [
            { type: "simple", value: "ok-one" },
            { type: "ghost", value: "web" },
          ],
        },
      },
      400,
      "ValidationError",
    );
    expect(await featureTags()).toEqual(before);
    expect((await listAllTags()).tags).not.toContainEqual({ type: "simple", value: "ok-one" });
  });
});

const listAllTags = () => call("/api/admin/tags", {}, 200, tagListSchema);
