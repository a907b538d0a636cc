import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { author, startChangeRequestSlice } from "./change-request.fixture.js";

describe("ChangeRequestConfig: which environments require change requests", () => {
  let slice: Awaited<ReturnType<typeof startChangeRequestSlice>>;
  beforeEach(async () => {
    slice = await startChangeRequestSlice();
    await slice.features.create("default", { name: "flag" }, author);
  });
  afterEach(() => slice.stop());

  it("lists every project environment, off with one approval until configured", async () => {
    await slice.config.putConfig("default", "production", { changeRequestsEnabled: true, requiredApprovals: 2 }, author);
    expect(await slice.config.getConfig("default")).toEqual([
      { environment: "development", type: "development", changeRequestEnabled: false, requiredApprovals: 1 },
      { environment: "production", type: "development", changeRequestEnabled: true, requiredApprovals: 2 },
    ]);
    await expect(slice.config.putConfig("default", "staging", { changeRequestsEnabled: true }, author)).rejects.toMatchObject({
      name: "NotFoundError",
    });
  });

  it("refuses a direct change to a protected environment and lets it through while a request applies", async () => {
    await slice.config.putConfig("default", "production", { changeRequestsEnabled: true }, author);
    await expect(slice.strategies.setEnvironmentEnabled("default", "flag", "production", true, author)).rejects.toMatchObject({
      name: "NoAccessError",
      message: expect.stringMatching(/Change requests are enabled for environment production/),
    });
    expect((await slice.features.get("flag")).environments.production).toBeUndefined();
    // Other environments and the flag's metadata stay open to direct changes.
    await slice.strategies.setEnvironmentEnabled("default", "flag", "development", true, author);
    await slice.features.setStale("flag", true, author);

    await slice.config.whileApplying(1, () => slice.strategies.setEnvironmentEnabled("default", "flag", "production", true, author));
    expect((await slice.features.get("flag")).environments.production?.enabled).toBe(true);
  });

  it("lets a flag that was archived while on be revived, off, in a protected environment", async () => {
    await slice.strategies.setEnvironmentEnabled("default", "flag", "production", true, author);
    await slice.config.putConfig("default", "production", { changeRequestsEnabled: true }, author);
    await slice.config.whileApplying(1, () => slice.features.archive("default", ["flag"], author));

    await slice.features.revive("default", ["flag"], author);
    expect((await slice.features.get("flag")).environments.production?.enabled).toBe(false);
    // Switching it on again is a change SDKs would see: that needs a request.
    await expect(slice.strategies.setEnvironmentEnabled("default", "flag", "production", true, author)).rejects.toMatchObject({
      name: "NoAccessError",
    });
  });
});
