import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { alice, startFeatureSlice } from "./feature-slice.fixture.js";

describe("FeatureService: a flag's lifecycle", () => {
  let slice: Awaited<ReturnType<typeof startFeatureSlice>>;
  beforeEach(async () => {
    slice = await startFeatureSlice({
      default: { featureNaming: null, featureLimit: null, environments: ["development", "production"] },
      strict: {
        featureNaming: { pattern: "^team-.+$", example: "team-x", description: null },
        featureLimit: 1,
        environments: ["development"],
      },
    });
  });
  afterEach(() => slice.stop());

  it("creates a flag with its creator as collaborator and records the creation", async () => {
    const doc = await slice.features.create("default", { name: "checkout", description: "One page" }, alice);
    expect(doc).toMatchObject({ _id: "checkout", project: "default", type: "release", stale: false, version: 1 });
    expect(doc.collaborators.map((c) => c.id)).toEqual([alice.userId]);
    expect(await slice.eventTypes("checkout")).toEqual(["feature-created"]);
  });

  it("refuses a taken name, a name against the project's pattern and a flag over its limit", async () => {
    await slice.features.create("default", { name: "taken" }, alice);
    await expect(slice.features.create("default", { name: "taken" }, alice)).rejects.toMatchObject({ name: "NameExistsError" });
    await expect(slice.features.create("strict", { name: "loose" }, alice)).rejects.toMatchObject({ name: "ValidationError" });
    await slice.features.create("strict", { name: "team-one" }, alice);
    await expect(slice.features.create("strict", { name: "team-two" }, alice)).rejects.toMatchObject({
      message: expect.stringMatching(/maximum number of feature flags/),
    });
    await expect(slice.features.create("nowhere", { name: "lost" }, alice)).rejects.toMatchObject({ name: "NotFoundError" });
  });

  it("patches metadata only, and refuses a patch whose result has the wrong types", async () => {
    await slice.features.create("default", { name: "patched" }, alice);
    const replace = (path: string, value: unknown) => [{ op: "replace" as const, path, value }];
    await expect(slice.features.patch("default", "patched", replace("/project", "other"), alice)).rejects.toMatchObject({
      name: "ValidationError",
      message: expect.stringMatching(/cannot be patched/),
    });
    await expect(slice.features.patch("default", "patched", replace("/type", "forever"), alice)).rejects.toMatchObject({
      name: "ValidationError",
      message: expect.stringMatching(/^Invalid patch result: type/),
    });
    const after = await slice.features.patch("default", "patched", [...replace("/stale", true), ...replace("/description", "d")], alice);
    expect(after).toMatchObject({ stale: true, description: "d", version: 2 });
    expect(await slice.eventTypes("patched")).toEqual(["feature-created", "feature-metadata-updated", "feature-stale-on"]);
  });

  it("archives, revives and hard-deletes, running the removal steps inside the same transaction", async () => {
    const archivedSteps: string[][] = [];
    const deletedSteps: string[][] = [];
    slice.features.addRemovalStep({
      archived: async (_tx, names) => void archivedSteps.push(names),
      deleted: async (_tx, names) => void deletedSteps.push(names),
    });
    await slice.features.create("default", { name: "old" }, alice);
    await slice.features.archive("default", ["old", "old"], alice);
    expect(archivedSteps).toEqual([["old"]]);
    expect((await slice.features.list({ project: "default", archived: false })).map((f) => f._id)).toEqual([]);
    await expect(slice.features.getInProject("default", "old")).rejects.toMatchObject({ name: "NotFoundError" });

    await slice.features.revive("default", ["old"], alice);
    expect((await slice.features.get("old")).lifecycle.map((s) => s.stage)).toEqual(["initial"]);
    await expect(slice.features.deleteArchived("default", ["old"], alice)).rejects.toMatchObject({ name: "NotFoundError" });

    await slice.features.archive("default", ["old"], alice);
    await slice.features.deleteArchived(undefined, ["old"], alice);
    expect(deletedSteps).toEqual([["old"]]);
    expect(await slice.features.find("old")).toBeNull();
    expect(await slice.eventTypes("old")).toEqual([
      "feature-created",
      "feature-archived",
      "feature-revived",
      "feature-archived",
      "feature-deleted",
    ]);
  });

  it("revives a flag off in every environment where it was on, keeping its strategies", async () => {
    await slice.features.create("default", { name: "dormant" }, alice);
    await slice.strategies.addStrategy("default", "dormant", "production", { name: "default" }, alice);
    for (const environment of ["development", "production"])
      await slice.strategies.setEnvironmentEnabled("default", "dormant", environment, true, alice);
    await slice.features.archive("default", ["dormant"], alice);
    expect((await slice.features.get("dormant")).environments.production?.enabled).toBe(true);

    await slice.features.revive("default", ["dormant"], alice);
    const revived = await slice.features.get("dormant");
    expect(Object.fromEntries(Object.entries(revived.environments).map(([name, env]) => [name, env.enabled]))).toEqual({
      development: false,
      production: false,
    });
    expect(revived.environments.production?.strategies.map((s) => s.name)).toEqual(["default"]);
  });

  it("leaves the flag as it was when a change guard refuses the change", async () => {
    await slice.features.create("default", { name: "guarded" }, alice);
    slice.features.addChangeGuard(async (_before, after) => {
      if (after.stale) throw new Error("stale flags are refused here");
    });
    await expect(slice.features.setStale("guarded", true, alice)).rejects.toThrow(/refused here/);
    expect(await slice.features.get("guarded")).toMatchObject({ stale: false, version: 1 });
  });

  it("clones a flag with fresh strategy ids, every environment off and the group id renamed on request", async () => {
    await slice.features.create("default", { name: "source" }, alice);
    const strategy = await slice.strategies.addStrategy(
      "default",
      "source",
      "development",
      { name: "flexibleRollout", parameters: { rollout: "50", stickiness: "default", groupId: "source" } },
      alice,
    );
    await slice.strategies.setEnvironmentEnabled("default", "source", "development", true, alice);
    const copy = await slice.features.clone("default", "source", "copy", true, alice);
    const copied = copy.environments.development;
    expect(copied?.enabled).toBe(false);
    expect(copied?.strategies).toHaveLength(1);
    expect(copied?.strategies[0]?.id).not.toBe(strategy.id);
    expect(copied?.strategies[0]?.parameters.groupId).toBe("copy");
  });
});
