import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flagAdmin } from "../src/flag-admin.js";
import { expectJson, startTestSystem, type TestSystem } from "../src/harness.js";

/**
 * Answers that differed from Unleash 8.2.0 for the same calls, as the parity harness
 * (`npm run test:parity`) found them, each checked here through the compiled gateway: the health
 * report, refusals (an archived flag switched on, variants patched through the flag, a tag without
 * a type, an invite link update with an unknown property, a signal without a token), the flag
 * types list, and what the
 * SDKs are served (a caller's `currentTime`, constraint value lists, dependencies, strategy fields).
 */
let vexil: TestSystem;
beforeAll(async () => {
  vexil = await startTestSystem();
});
afterAll(() => vexil?.stop());

describe.each(["default", "divergences-fresh"])("in project %s", (project) => {
  const flag = (base: string) => `${project}-${base}`;
  const feature = (name: string) => `/api/admin/projects/${project}/features/${name}`;
  let tokens: { client: string; frontend: string };

  beforeAll(async () => {
    if (project !== "default") await vexil.createProject(project);
    tokens =
      project === "default"
        ? vexil.tokens
        : {
            client: await vexil.createApiToken({ type: "client", projects: [project] }),
            frontend: await vexil.createApiToken({ type: "frontend", projects: [project] }),
          };
  });

  it("gives the health report a featureNaming object and an updatedAt, as Unleash does", async () => {
    const report = await expectJson(await vexil.api(`/api/admin/projects/${project}/health-report`), 200);
    expect(report.featureNaming).toEqual({ pattern: null, example: null, description: null });
    expect(Date.parse(report.updatedAt)).toBeGreaterThanOrEqual(Date.parse(report.createdAt));
  });

  it("refuses to switch on an archived flag with 400, not 404", async () => {
    const admin = flagAdmin((path, init) => vexil.api(path, init), project);
    await admin.createFeature(flag("archived"));
    await admin.archive(flag("archived"));
    const body = await vexil.expectError(
      `${feature(flag("archived"))}/environments/development/on`,
      { method: "POST" },
      400,
      "ValidationError",
    );
    expect(body.message).toContain("archived");
    await vexil.expectError(`${feature(flag("never-created"))}/environments/development/on`, { method: "POST" }, 404, "NotFoundError");
  });

  it("refuses variants patched through the flag with 403, naming the variants endpoint", async () => {
    await flagAdmin((path, init) => vexil.api(path, init), project).createFeature(flag("patched"));
    const variant = { name: "x", weight: 0, weightType: "variable", stickiness: "default" };
    const body = await vexil.expectError(
      feature(flag("patched")),
      { method: "PATCH", body: [{ op: "add", path: "/variants/-", value: variant }] },
      403,
      "NoAccessError",
    );
    expect(body.message).toContain("/environments/:environment/variants");
    await vexil.expectStatus(
      feature(flag("patched")),
      { method: "PATCH", body: [{ op: "replace", path: "/description", value: "d" }] },
      200,
    );
  });

  it("evaluates date constraints for the frontend API at the server's time, whatever currentTime the caller sends", async () => {
    const admin = flagAdmin((path, init) => vexil.api(path, init), project);
    await admin.createFeature(flag("from-2031"));
    await admin.addStrategy(flag("from-2031"), "development", {
      name: "default",
      constraints: [{ contextName: "currentTime", operator: "DATE_AFTER", value: "2031-01-01T00:00:00.000Z" }],
    });
    await admin.setEnabled(flag("from-2031"), "development", true);
    await admin.createFeature(flag("always"));
    await admin.setEnabled(flag("always"), "development", true);
    const toggles = async (context: Record<string, unknown>) => {
      const res = await vexil.api("/api/frontend", { method: "POST", token: tokens.frontend, body: { context } });
      return ((await expectJson(res, 200)).toggles as Array<{ name: string }>).map((t) => t.name);
    };
    // Wait until the frontend serves this project's flags, then ask as a caller from the future.
    await expect.poll(() => toggles({ userId: "u1" }), { timeout: 20_000 }).toContain(flag("always"));
    expect(await toggles({ userId: "u1", currentTime: "2032-06-01T00:00:00.000Z" })).not.toContain(flag("from-2031"));
    expect(await toggles({ userId: "u1", properties: { currentTime: "2032-06-01T00:00:00.000Z" } })).not.toContain(flag("from-2031"));
  });

  it("serves the SDKs constraints with a values list, dependencies without empty variants and strategies without title or sortOrder", async () => {
    const admin = flagAdmin((path, init) => vexil.api(path, init), project);
    await admin.createFeature(flag("parent"));
    await admin.createFeature(flag("adults"));
    await admin.addStrategy(flag("adults"), "development", {
      name: "default",
      title: "grown-ups",
      constraints: [{ contextName: "age", operator: "NUM_GTE", value: "18" }],
    });
    await admin.addDependency(flag("adults"), { feature: flag("parent"), enabled: false });
    await admin.setEnabled(flag("adults"), "development", true);
    const served = async () => {
      const res = await vexil.api("/api/client/features", { token: tokens.client });
      return ((await expectJson(res, 200)).features as Array<Record<string, any>>).find((f) => f.name === flag("adults"));
    };
    await expect.poll(async () => (await served())?.enabled, { timeout: 20_000 }).toBe(true);
    const adults = await served();
    expect(adults!.strategies).toHaveLength(1);
    const [strategy] = adults!.strategies;
    expect(strategy.constraints).toEqual([{ contextName: "age", operator: "NUM_GTE", value: "18", values: [] }]);
    expect(Object.keys(strategy)).not.toContain("title");
    expect(Object.keys(strategy)).not.toContain("sortOrder");
    expect(adults!.dependencies).toEqual([{ feature: flag("parent"), enabled: false }]);
  });
});

describe("answers that do not depend on a project", () => {
  it("lists the flag types with their lifetimes, as Unleash does", async () => {
    const body = await vexil.expectStatus("/api/admin/feature-types", {}, 200);
    expect(body.version).toBe(1);
    expect(body.types.map((t: { id: string; lifetimeDays: number | null }) => [t.id, t.lifetimeDays])).toEqual([
      ["release", 40],
      ["experiment", 40],
      ["operational", 7],
      ["kill-switch", null],
      ["permission", null],
      ["sunset", 90],
    ]);
    await vexil.expectError("/api/admin/feature-types", { token: null }, 401, "AuthenticationRequired");
  });

  it("refuses a tag without a type with 400", async () => {
    await vexil.expectError("/api/admin/tags", { method: "POST", body: { value: "untyped" } }, 400, "ValidationError");
    await vexil.expectStatus("/api/admin/tags", { method: "POST", body: { value: "typed", type: "simple" } }, 201);
  });

  it("refuses an invite link update with an unknown property with 400, leaving the link unchanged", async () => {
    const created = await vexil.expectStatus(
      "/api/admin/invite-link/tokens",
      { method: "POST", body: { name: "divergences", expiresAt: "2099-01-01T00:00:00.000Z" } },
      201,
    );
    const path = `/api/admin/invite-link/tokens/${created.secret}`;
    await vexil.expectError(
      path,
      { method: "PUT", body: { expiresAt: "2098-01-01T00:00:00.000Z", colour: "red" } },
      400,
      "ValidationError",
    );
    expect((await vexil.expectStatus(path, {}, 200)).expiresAt).toBe(created.expiresAt);
    await vexil.expectStatus(path, { method: "PUT", body: { enabled: false } }, 200);
  });

  it("answers a signal without a valid token with 401 whether or not the endpoint exists", async () => {
    for (const token of [null, "not-a-signal-token"]) {
      await vexil.expectError("/api/signal-endpoint/no-such-endpoint", { method: "POST", token, body: {} }, 401, "AuthenticationRequired");
    }
  });
});
