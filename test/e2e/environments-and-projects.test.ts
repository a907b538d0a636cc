import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  environmentListSchema,
  environmentSchema,
  featureListSchema,
  featureSchema,
  projectListSchema,
  projectSchema,
  strategyFieldsSchema,
} from "@vexil/contracts";
import { adminExpect } from "../src/admin-expect.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";

/**
 * Environments and projects through the admin API of the compiled gateway: creating, updating,
 * sorting and switching environments; projects with naming patterns, limits, modes and their
 * environments and default strategies. The flags themselves are `flag-features.test.ts` and
 * `flag-strategies-and-variants.test.ts`.
 */
let vexil: TestSystem;
beforeAll(async () => {
  vexil = await startTestSystem();
});
afterAll(() => vexil.stop());

const { call, get, expectError, expectGuarded, expectEventTypes } = adminExpect(() => vexil);
const createFlag = (name: string, body: Record<string, unknown> = {}, project = "default") =>
  call(`/api/admin/projects/${project}/features`, { method: "POST", body: { name, ...body } }, 201, featureSchema);

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
    const posted = await call(
      "/api/admin/projects/envs/environments/staging/default-strategy",
      { method: "POST", body: { name: "userWithId", parameters: { userIds: "c" } } },
      200,
      strategyFieldsSchema,
    );
    expect(posted).toMatchObject({ name: "userWithId", parameters: { userIds: "c" } });
    // A flag switched on in the environment without a strategy of its own gets the default.
    await createFlag("envs-flag", {}, "envs");
    await call("/api/admin/projects/envs/features/envs-flag/environments/staging/on", { method: "POST" }, 200);
    const staging = (await get("/api/admin/projects/envs/features/envs-flag")).environments.find(
      (e: { name: string }) => e.name === "staging",
    );
    expect(staging).toMatchObject({
      enabled: true,
      strategies: [expect.objectContaining({ name: "userWithId", parameters: { userIds: "c" } })],
    });
    await call("/api/admin/projects/envs/features/envs-flag", { method: "DELETE" }, 202);
    await call("/api/admin/projects/envs/environments/development", { method: "DELETE" }, 200);
    await expectError("/api/admin/projects/envs/environments/staging", { method: "DELETE" }, 400, "ValidationError");
    await expectError("/api/admin/projects/envs/environments/production", { method: "DELETE" }, 404, "NotFoundError");
    expect((await get("/api/admin/environments/project/envs", environmentListSchema)).environments.map((e) => e.name)).toEqual(["staging"]);
  });
});

describe("events", () => {
  it("records Unleash's event types for the changes to environments and projects", async () => {
    await expectEventTypes(["environment-created", "project-created", "project-updated", "project-deleted", "default-strategy-updated"]);
  });
});
