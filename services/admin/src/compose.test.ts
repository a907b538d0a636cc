/**
 * The admin slices wired together as compose/ wires them (embedded store, in-memory bus and
 * cache, no network): the rules that cross slices, checked through the domain services.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTokenSecret } from "@vexil/auth";
import { createMemoryBus } from "@vexil/bus";
import { createMemoryCache } from "@vexil/cache";
import { createLogger } from "@vexil/logger";
import { createEmbeddedEngine } from "@vexil/store";
import type { Actor } from "./access/actor.js";
import { createAdminDeps, type AdminDeps, type AdminSettings } from "./compose/index.js";
import { testSecretBox } from "./secrets/secrets.fixture.js";
import { createAdminService } from "./service.js";

const admin: Actor = { name: "admin", userId: 1 };

async function startAdmin(settings: Partial<AdminSettings> = {}) {
  const dir = await mkdtemp(path.join(tmpdir(), "vexil-admin-compose-"));
  const engines = { store: await createEmbeddedEngine({ dir }), bus: createMemoryBus(), cache: createMemoryCache() };
  const deps = await createAdminDeps({
    engines,
    settings: {
      INIT_ADMIN_API_TOKENS: [createTokenSecret({ projects: ["*"], environment: "*" })],
      INIT_CLIENT_API_TOKENS: [],
      INIT_FRONTEND_API_TOKENS: [],
      ...settings,
    },
    secrets: testSecretBox(),
    logger: createLogger({ service: "admin-compose-test", level: "silent" }),
  });
  const service = createAdminService(deps);
  await service.start();
  return {
    deps,
    async stop() {
      await service.stop();
      await engines.store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

describe("strategies take the segment rules from the segment slice", () => {
  let system: { deps: AdminDeps; stop(): Promise<void> };
  beforeAll(async () => {
    system = await startAdmin({ UNLEASH_STRATEGY_SEGMENTS_LIMIT: 2 });
  });
  afterAll(() => system.stop());

  it("applies the configured per-strategy limit and refuses another project's segment", async () => {
    const { featureService, flagEnvironments, segmentService, projectService } = system.deps.flags;
    await projectService.create({ id: "other", name: "Other" }, admin);
    const ids: number[] = [];
    for (const name of ["s1", "s2", "s3"]) ids.push((await segmentService.create({ name, constraints: [] }, admin)).id);
    const foreign = await segmentService.create({ name: "theirs", project: "other", constraints: [] }, admin);
    await featureService.create("default", { name: "segmented" }, admin);
    const add = (segments: number[]) =>
      flagEnvironments.addStrategy("default", "segmented", "development", { name: "default", segments }, admin);

    await expect(add(ids)).rejects.toMatchObject({ name: "ValidationError", message: expect.stringMatching(/at most 2 segments/) });
    await expect(add([foreign.id])).rejects.toMatchObject({
      name: "ValidationError",
      message: expect.stringMatching(/belongs to project other/),
    });
    await expect(add([999])).rejects.toMatchObject({ name: "ValidationError", message: expect.stringMatching(/no segment exists/) });
    expect((await featureService.get("segmented")).environments.development?.strategies ?? []).toEqual([]);

    const added = await add(ids.slice(0, 2));
    expect(added.segments).toEqual(ids.slice(0, 2));
  });

  it("gives a flexible rollout without a group id the flag's name, as the default strategy does", async () => {
    const { featureService, flagEnvironments } = system.deps.flags;
    await featureService.create("default", { name: "grouped" }, admin);
    const added = await flagEnvironments.addStrategy(
      "default",
      "grouped",
      "development",
      { name: "flexibleRollout", parameters: { rollout: "50", stickiness: "default" } },
      admin,
    );
    expect(added.parameters.groupId).toBe("grouped");
    const enabled = await flagEnvironments.setEnvironmentEnabled("default", "grouped", "production", true, admin);
    expect(enabled.environments.production?.strategies[0]?.parameters.groupId).toBe("grouped");
  });
});

describe("archiving and hard-deleting are one unit of work with their clean-up", () => {
  let system: { deps: AdminDeps; stop(): Promise<void> };
  beforeAll(async () => {
    system = await startAdmin();
  });
  afterAll(() => system.stop());

  it("drops the dependencies of archived flags in the archive's own commit", async () => {
    const { featureService, dependencyService } = system.deps.flags;
    const { events } = system.deps;
    await featureService.create("default", { name: "parent-a" }, admin);
    await featureService.create("default", { name: "child-a" }, admin);
    await dependencyService.add("default", "child-a", { feature: "parent-a", enabled: true, variants: [] }, admin);

    await featureService.archive("default", ["parent-a"], admin);

    // No waiting: the clean-up committed with the archive.
    expect((await featureService.get("child-a")).dependencies).toEqual([]);
    const { events: recent } = await events.list({ featureName: "child-a", offset: 0, limit: 5 });
    expect(recent.map((e) => e.type)).toContain("feature-dependencies-removed");
  });

  it("archives nothing when the dependency clean-up fails", async () => {
    const { featureService, dependencyService } = system.deps.flags;
    await featureService.create("default", { name: "parent-b" }, admin);
    await featureService.create("default", { name: "child-b" }, admin);
    await dependencyService.add("default", "child-b", { feature: "parent-b", enabled: false, variants: [] }, admin);
    featureService.addChangeGuard(async (before, after) => {
      if (after._id === "child-b" && after.dependencies.length < before.dependencies.length) throw new Error("clean-up failed");
    });

    await expect(featureService.archive("default", ["parent-b"], admin)).rejects.toThrow("clean-up failed");

    expect((await featureService.get("parent-b")).archived).toBe(false);
    expect((await featureService.get("child-b")).dependencies).toEqual([{ feature: "parent-b", enabled: false, variants: [] }]);
  });

  it("removes a deleted flag's tags in the delete's commit, and deletes nothing when that fails", async () => {
    const { featureService, tagService } = system.deps.flags;
    const { stores } = system.deps;
    for (const name of ["tagged-a", "tagged-b"]) {
      await featureService.create("default", { name }, admin);
      await tagService.addFeatureTag(name, { type: "simple", value: "team-x" }, admin);
    }
    await featureService.archive("default", ["tagged-a", "tagged-b"], admin);

    await featureService.deleteArchived("default", ["tagged-a"], admin);
    expect(await stores.tags.featureTags("tagged-a")).toEqual([]);

    const removeFeatureTags = stores.tags.removeFeatureTags;
    stores.tags.removeFeatureTags = async () => {
      throw new Error("tag store unavailable");
    };
    try {
      await expect(featureService.deleteArchived("default", ["tagged-b"], admin)).rejects.toThrow("tag store unavailable");
    } finally {
      stores.tags.removeFeatureTags = removeFeatureTags;
    }
    expect((await featureService.get("tagged-b")).archived).toBe(true);
    expect((await tagService.tagsOf("tagged-b")).map((t) => t.value)).toEqual(["team-x"]);
  });
});
