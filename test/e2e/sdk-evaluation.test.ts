import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flagAdmin } from "../src/flag-admin.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";
import { sdkPool, until } from "../src/sdks.js";
import { waitFor } from "../src/servers.js";

/**
 * The real Unleash SDKs against the compiled gateway: the server SDK polling and streaming
 * `/api/client/*`, and the browser SDK on `/api/frontend`, reading flags set up through the admin
 * API in `default` and in a project created while Vexil runs, through tokens for that project, for
 * it and another, and for every project; each sees exactly its projects' flags and a change made
 * while it runs.
 */
const projects = ["default", "sdk-fresh"] as const;
/** A project no one-project token covers: its flag shows only where the scope includes it. */
const outside = "sdk-outside";

let vexil: TestSystem;
const sdks = sdkPool();

/** The flags of one project, named after it (flag names are unique across projects). */
async function setUpFlags(project: string): Promise<void> {
  const admin = flagAdmin((path, init) => vexil.api(path, init), project);
  const flag = (base: string) => `${project}-${base}`;

  await admin.createFeature(flag("on"));
  await admin.addStrategy(flag("on"), "development", {
    name: "flexibleRollout",
    parameters: { rollout: "100", stickiness: "default", groupId: flag("on") },
  });
  await admin.setEnabled(flag("on"), "development", true);

  await admin.createFeature(flag("vip"), { impressionData: true });
  const vips = await admin.createSegment(flag("vips"), [{ contextName: "userId", operator: "IN", values: ["vip-1", "vip-2"] }]);
  await admin.addStrategy(flag("vip"), "development", {
    name: "flexibleRollout",
    parameters: { rollout: "100", stickiness: "default", groupId: flag("vip") },
    segments: [vips],
    variants: [
      { name: "gold", weight: 1000, weightType: "variable", stickiness: "default", payload: { type: "json", value: '{"tier":1}' } },
    ],
  });
  await admin.setEnabled(flag("vip"), "development", true);

  await admin.createFeature(flag("split"));
  await admin.addStrategy(flag("split"), "development", {
    name: "flexibleRollout",
    parameters: { rollout: "100", stickiness: "userId", groupId: flag("split") },
    constraints: [{ contextName: "plan", operator: "IN", values: ["pro"] }],
  });
  await admin.setVariants(flag("split"), "development", [
    { name: "red", weight: 300, weightType: "fix", stickiness: "userId" },
    {
      name: "blue",
      weight: 700,
      weightType: "variable",
      stickiness: "userId",
      overrides: [{ contextName: "userId", values: ["always-blue"] }],
    },
  ]);
  await admin.setEnabled(flag("split"), "development", true);

  // No groupId: Unleash hashes these variants with the groupId as written ("undefined").
  await admin.createFeature(flag("nogroup"));
  await admin.addStrategy(flag("nogroup"), "development", {
    name: "default",
    variants: [
      { name: "a", weight: 200, weightType: "fix", stickiness: "default" },
      { name: "b", weight: 800, weightType: "variable", stickiness: "default" },
    ],
  });
  await admin.setEnabled(flag("nogroup"), "development", true);

  await admin.createFeature(flag("off"));
}

beforeAll(async () => {
  vexil = await startTestSystem();
  await vexil.createProject("sdk-fresh");
  await vexil.createProject(outside);
  for (const project of projects) await setUpFlags(project);
  const admin = flagAdmin((path, init) => vexil.api(path, init), outside);
  await admin.createFeature("outside-on");
  await admin.setEnabled("outside-on", "development", true);
});

afterAll(async () => {
  sdks.stopAll();
  await vexil?.stop();
});

/** What the admin API lists for the projects a token covers: what its SDK must see, no more. */
async function flagsIn(scope: string[]): Promise<string[]> {
  const lists = scope.includes("*")
    ? [await vexil.expectStatus("/api/admin/features", undefined, 200)]
    : await Promise.all(scope.map((p) => vexil.expectStatus(`/api/admin/projects/${p}/features`, undefined, 200)));
  return lists.flatMap((list) => list.features.map((f: { name: string }) => f.name)).sort();
}

describe.each(projects)("flags in project %s", (project) => {
  const flag = (base: string) => `${project}-${base}`;

  describe.each([
    { scope: "this project", projects: [project] },
    { scope: "this project and another", projects: [project, outside] },
    { scope: "every project", projects: ["*"] },
  ])("tokens for $scope", ({ projects: scope }) => {
    let client: string;
    let frontend: string;
    beforeAll(async () => {
      client = await vexil.createApiToken({ type: "client", projects: scope });
      frontend = await vexil.createApiToken({ type: "frontend", projects: scope });
    });

    it.each(["polling", "streaming"] as const)("unleash-client (%s) evaluates flags, segments, constraints and variants", async (mode) => {
      const unleash = await sdks.serverSdk(vexil, client, mode);
      expect(
        unleash
          .getFeatureToggleDefinitions()
          .map((f) => f.name)
          .sort(),
      ).toEqual(await flagsIn(scope));
      expect(unleash.isEnabled(flag("on"), { userId: "anyone" })).toBe(true);
      expect(unleash.isEnabled(flag("off"))).toBe(false);
      expect(unleash.isEnabled(flag("vip"), { userId: "vip-1" })).toBe(true);
      expect(unleash.isEnabled(flag("vip"), { userId: "nobody" })).toBe(false);
      expect(unleash.getVariant(flag("vip"), { userId: "vip-2" })).toMatchObject({
        name: "gold",
        enabled: true,
        payload: { type: "json", value: '{"tier":1}' },
      });
      expect(unleash.isEnabled(flag("split"), { userId: "u1", properties: { plan: "free" } })).toBe(false);
      expect(unleash.getVariant(flag("split"), { userId: "always-blue", properties: { plan: "pro" } }).name).toBe("blue");
      const names = new Set(
        Array.from({ length: 200 }, (_, i) => unleash.getVariant(flag("split"), { userId: `user-${i}`, properties: { plan: "pro" } }).name),
      );
      expect(names).toEqual(new Set(["red", "blue"]));
      expect(unleash.isEnabled("outside-on")).toBe(scope.includes(outside) || scope.includes("*"));
    });

    it("/api/frontend gives every user the variant unleash-client picks from /api/client/features", async () => {
      const unleash = await sdks.serverSdk(vexil, client, "polling");
      for (const name of [flag("nogroup"), flag("split")]) {
        for (let i = 0; i < 40; i++) {
          const context = { userId: `user-${i}`, properties: { plan: "pro" } };
          const res = await vexil.api(`/api/frontend?userId=${context.userId}&properties[plan]=pro`, { token: frontend });
          const served = ((await res.json()) as { toggles: Array<{ name: string; variant: { name: string } }> }).toggles.find(
            (t) => t.name === name,
          );
          expect(served?.variant.name, `${name} for ${context.userId}`).toBe(unleash.getVariant(name, context).name);
        }
      }
    });

    it("unleash-proxy-client evaluates on /api/frontend, seeing only the enabled flags of its projects", async () => {
      const browser = await sdks.browserSdk(vexil, frontend, { userId: "vip-1" });
      expect(browser.isEnabled(flag("on"))).toBe(true);
      expect(browser.isEnabled(flag("off"))).toBe(false);
      expect(browser.getVariant(flag("vip"))).toMatchObject({ name: "gold", enabled: true, feature_enabled: true });
      expect(browser.isEnabled("outside-on")).toBe(scope.includes(outside) || scope.includes("*"));
      const others = projects.filter((p) => p !== project).map((p) => `${p}-vip`);
      for (const other of others) expect(browser.isEnabled(other)).toBe(scope.includes("*"));
    });
    it("answers one feature on /api/client/features/{name} only within the token's projects", async () => {
      // An SDK of client specification 4.2.0 or later resolves segments itself; an older one gets their constraints inlined.
      const modern = { token: client, headers: { "unleash-client-spec": "5.1.0" } };
      const vip = await vexil.expectStatus(`/api/client/features/${flag("vip")}`, modern, 200);
      expect(vip).toMatchObject({ name: flag("vip"), project, enabled: true, impressionData: true });
      expect(vip.strategies).toEqual([
        expect.objectContaining({
          name: "flexibleRollout",
          constraints: [],
          segments: [expect.any(Number)],
          variants: [expect.objectContaining({ name: "gold" })],
        }),
      ]);
      const listed = await vexil.expectStatus("/api/client/features", modern, 200);
      expect(vip).toEqual(listed.features.find((f: { name: string }) => f.name === flag("vip")));
      expect(listed.segments.find((segment: { id: number }) => segment.id === vip.strategies[0].segments[0])).toMatchObject({
        constraints: [expect.objectContaining({ contextName: "userId", values: ["vip-1", "vip-2"] })],
      });
      const inlined = await vexil.expectStatus(`/api/client/features/${flag("vip")}`, { token: client }, 200);
      expect(inlined.strategies[0].constraints).toEqual([expect.objectContaining({ contextName: "userId", values: ["vip-1", "vip-2"] })]);
      expect(inlined.strategies[0].segments).toBeUndefined();
      const outsideCovered = scope.includes(outside) || scope.includes("*");
      expect((await vexil.api("/api/client/features/outside-on", { token: client })).status).toBe(outsideCovered ? 200 : 404);
      await vexil.expectError("/api/client/features/no-such-flag", { token: client }, 404, "NotFoundError");
    });

    it("hydrates /api/client/delta with the token's flags, answers 304 on its revision, then sends only changes in scope", async () => {
      const hydration = await vexil.api("/api/client/delta", { token: client });
      expect(hydration.status).toBe(200);
      const etag = hydration.headers.get("etag")!;
      expect(etag).toMatch(/^"\d+"$/);
      const { events } = (await hydration.json()) as { events: Array<{ type: string; features: Array<{ name: string }> }> };
      expect(events.map((e) => e.type)).toEqual(["hydration"]);
      expect(events[0]!.features.map((f) => f.name).sort()).toEqual(await flagsIn(scope));
      expect((await vexil.api("/api/client/delta", { token: client, headers: { "if-none-match": etag } })).status).toBe(304);

      // A flag outside the token's projects first, then one inside: once the later is in the
      // delta, so is the earlier when the token covers its project.
      const suffix = scope.length === 1 ? scope[0] : scope.includes("*") ? "all" : "several";
      await flagAdmin((path, init) => vexil.api(path, init), outside).createFeature(`outside-${project}-delta-${suffix}`);
      await flagAdmin((path, init) => vexil.api(path, init), project).createFeature(flag(`delta-${suffix}`));
      let changed: string[] = [];
      let types: string[] = [];
      const arrived = await waitFor(async () => {
        const res = await vexil.api("/api/client/delta", { token: client, headers: { "if-none-match": etag } });
        if (res.status !== 200) return false;
        const delta = (await res.json()) as { events: Array<{ type: string; feature?: { name: string } }> };
        types = delta.events.map((e) => e.type);
        changed = delta.events.flatMap((e) => (e.feature ? [e.feature.name] : []));
        return changed.includes(flag(`delta-${suffix}`));
      }, 30_000);
      expect(arrived, `delta: ${changed.join(", ")}`).toBe(true);
      expect(new Set(types)).toEqual(new Set(["feature-updated"]));
      expect(changed.includes(`outside-${project}-delta-${suffix}`)).toBe(scope.includes(outside) || scope.includes("*"));
    });
  });

  describe("a change made while the SDKs run", () => {
    it("reaches the polling, streaming and browser SDKs", async () => {
      const admin = flagAdmin((path, init) => vexil.api(path, init), project);
      const polling = await sdks.serverSdk(vexil, await vexil.createApiToken({ type: "client", projects: [project] }), "polling");
      const streaming = await sdks.serverSdk(
        vexil,
        await vexil.createApiToken({ type: "client", projects: [project, outside] }),
        "streaming",
      );
      const browser = await sdks.browserSdk(vexil, vexil.tokens.frontend, { userId: "vip-1" });
      expect(browser.isEnabled(flag("on"))).toBe(true);
      expect(browser.isEnabled(flag("off"))).toBe(false);

      await admin.setEnabled(flag("off"), "development", true);
      await admin.setEnabled(flag("on"), "development", false);

      // The streaming SDK never polls (see sdkPool): seeing the change at all means it was pushed.
      await until(() => streaming.isEnabled(flag("off")) && !streaming.isEnabled(flag("on")), 30_000, "streamed change");
      await until(() => polling.isEnabled(flag("off")) && !polling.isEnabled(flag("on")), 30_000, "polled change");
      await until(() => browser.isEnabled(flag("off")) && !browser.isEnabled(flag("on")), 30_000, "browser change");

      await admin.archive(flag("off"));
      await until(() => !streaming.isEnabled(flag("off")), 30_000, "streamed archive");
      expect(streaming.getFeatureToggleDefinition(flag("off"))).toBeUndefined();
      sdks.stopAll();
    });
  });

  describe("metrics from SDKs", () => {
    it("set the flag's lastSeenAt in the token's environment", async () => {
      const now = new Date().toISOString();
      const token = await vexil.createApiToken({ type: "client", projects: [project] });
      const res = await vexil.api("/api/client/metrics", {
        method: "POST",
        token,
        body: {
          appName: "e2e-metrics",
          instanceId: "i1",
          bucket: { start: now, stop: now, toggles: { [flag("vip")]: { yes: 3, no: 1, variants: {} } } },
        },
      });
      expect(res.status).toBe(202);
      let environments: Array<{ name: string; lastSeenAt: string | null }> = [];
      for (
        const deadline = Date.now() + 60_000;
        !environments.find((e) => e.name === "development")?.lastSeenAt && Date.now() < deadline;
      ) {
        environments = (await vexil.expectStatus(`/api/admin/projects/${project}/features/${flag("vip")}`, undefined, 200)).environments;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(environments.find((e) => e.name === "development")?.lastSeenAt).toEqual(expect.any(String));
      expect(environments.find((e) => e.name === "production")?.lastSeenAt).toBeNull();
    });
  });
});
