import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { alice, startFeatureSlice } from "./feature-slice.fixture.js";

describe("FlagEnvironmentService: what a flag does in each environment", () => {
  let slice: Awaited<ReturnType<typeof startFeatureSlice>>;
  beforeEach(async () => {
    slice = await startFeatureSlice({ default: { featureNaming: null, featureLimit: null, environments: ["development", "production"] } });
    await slice.features.create("default", { name: "flag" }, alice);
  });
  afterEach(() => slice.stop());

  it("enables an environment with the project's default strategy, grouped by the flag's name", async () => {
    const doc = await slice.strategies.setEnvironmentEnabled("default", "flag", "production", true, alice);
    const production = doc.environments.production;
    expect(production?.enabled).toBe(true);
    expect(production?.strategies.map((s) => [s.name, s.parameters.groupId])).toEqual([["flexibleRollout", "flag"]]);
    await slice.strategies.setEnvironmentEnabled("default", "flag", "production", false, alice);
    expect((await slice.features.get("flag")).environments.production).toMatchObject({
      enabled: false,
      strategies: [{ name: "flexibleRollout" }],
    });
    expect(await slice.eventTypes("flag")).toEqual([
      "feature-created",
      "feature-strategy-add",
      "feature-environment-enabled",
      "feature-environment-disabled",
    ]);
  });

  it("refuses an environment the project does not have and a strategy nobody defined", async () => {
    await expect(slice.strategies.setEnvironmentEnabled("default", "flag", "staging", true, alice)).rejects.toMatchObject({
      name: "NotFoundError",
    });
    await expect(slice.strategies.addStrategy("default", "flag", "development", { name: "mystery" }, alice)).rejects.toMatchObject({
      name: "ValidationError",
      message: "Strategy mystery is not defined",
    });
  });

  it("reorders, updates and deletes strategies; deleting the last one turns the environment off", async () => {
    const first = await slice.strategies.addStrategy("default", "flag", "development", { name: "default" }, alice);
    const second = await slice.strategies.addStrategy(
      "default",
      "flag",
      "development",
      { name: "userWithId", parameters: { userIds: "1" } },
      alice,
    );
    expect(second.sortOrder).toBe(first.sortOrder + 1);
    await slice.strategies.setStrategySortOrder("default", "flag", "development", [{ id: second.id, sortOrder: -1 }], alice);
    expect((await slice.strategies.listStrategies("default", "flag", "development")).map((s) => s.id)).toEqual([second.id, first.id]);
    await expect(
      slice.strategies.setStrategySortOrder("default", "flag", "development", [{ id: "unknown", sortOrder: 0 }], alice),
    ).rejects.toMatchObject({ name: "NotFoundError" });

    const patched = await slice.strategies.patchStrategy(
      "default",
      "flag",
      "development",
      second.id,
      [{ op: "replace", path: "/parameters/userIds", value: "1,2" }],
      alice,
    );
    expect(patched.parameters.userIds).toBe("1,2");

    await slice.strategies.setEnvironmentEnabled("default", "flag", "development", true, alice);
    await slice.strategies.deleteStrategy("default", "flag", "development", first.id, alice);
    expect((await slice.features.get("flag")).environments.development?.enabled).toBe(true);
    await slice.strategies.deleteStrategy("default", "flag", "development", second.id, alice);
    expect((await slice.features.get("flag")).environments.development).toMatchObject({ enabled: false, strategies: [] });
  });

  it("replaces variants with weights spread to 1000 and refuses a patch that breaks the variant list", async () => {
    const variant = (name: string) => ({ name, weight: 0, weightType: "variable" as const, stickiness: "default" });
    const { variants } = await slice.strategies.setVariants(
      "default",
      "flag",
      ["development", "production"],
      [variant("a"), variant("b")],
      alice,
    );
    expect(variants.map((v) => v.weight)).toEqual([500, 500]);
    expect((await slice.strategies.getVariants("default", "flag", "production")).variants).toEqual(variants);
    await expect(
      slice.strategies.patchVariants("default", "flag", "development", [{ op: "replace", path: "/0/weightType", value: "heavy" }], alice),
    ).rejects.toMatchObject({ name: "ValidationError", message: expect.stringMatching(/^Invalid patch result/) });
  });
});
