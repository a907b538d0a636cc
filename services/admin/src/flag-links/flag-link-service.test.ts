import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { alice, startFeatureSlice } from "../features/feature-slice.fixture.js";
import { FlagLinkService, maxLinksPerFlag, normalizeLinkUrl } from "./flag-link-service.js";
import { createFlagLinkStore } from "./flag-link-store.js";

describe("FlagLinkService: URLs on a flag", () => {
  let slice: Awaited<ReturnType<typeof startFeatureSlice>>;
  let links: FlagLinkService;
  beforeEach(async () => {
    slice = await startFeatureSlice({ default: { featureNaming: null, featureLimit: null, environments: ["development"] } });
    links = new FlagLinkService({
      links: await createFlagLinkStore(slice.engine),
      features: slice.features,
      unitOfWork: slice.unitOfWork,
      clock: slice.clock,
    });
    await slice.features.create("default", { name: "checkout" }, alice);
  });
  afterEach(() => slice.stop());

  it("normalizes a URL as Unleash does and refuses what is not an http or https URL", () => {
    expect(normalizeLinkUrl("example.com")).toBe("https://example.com");
    expect(normalizeLinkUrl(" HTTP://Example.com/a/?b=2&a=1 ")).toBe("http://example.com/a?a=1&b=2");
    expect(() => normalizeLinkUrl("not a url")).toThrow(
      expect.objectContaining({ name: "ValidationError", message: "Invalid URL: not a url" }),
    );
    for (const url of ["javascript://x%0aalert(1)", "ftp://files.example.com"]) {
      expect(() => normalizeLinkUrl(url)).toThrow(
        expect.objectContaining({ name: "ValidationError", details: [{ path: "body.url", message: expect.stringMatching(/^Only http/) }] }),
      );
    }
  });

  it("adds, changes and removes links, oldest first, each with its event", async () => {
    slice.advanceClock(1);
    const first = await links.create("default", "checkout", { url: "github.com/acme/shop/issues/1", title: "Plan" }, alice);
    slice.advanceClock(1);
    const second = await links.create("default", "checkout", { url: "https://grafana.example.com/d/1" }, alice);
    expect((await links.linksOf(["checkout", "other"])).get("checkout")).toEqual([
      { id: first.id, url: "https://github.com/acme/shop/issues/1", title: "Plan" },
      { id: second.id, url: "https://grafana.example.com/d/1", title: null },
    ]);

    await links.update("default", "checkout", first.id, { url: "github.com/acme/shop/pull/2", title: "" }, alice);
    await links.remove("default", "checkout", second.id, alice);
    expect((await links.linksOf(["checkout"])).get("checkout")).toEqual([
      { id: first.id, url: "https://github.com/acme/shop/pull/2", title: null },
    ]);
    expect(await slice.eventTypes("checkout")).toEqual([
      "feature-created",
      "feature-link-added",
      "feature-link-added",
      "feature-link-updated",
      "feature-link-removed",
    ]);
  });

  it("refuses an unknown flag, a link of another flag, and an eleventh link", async () => {
    await expect(links.create("default", "ghost", { url: "example.com" }, alice)).rejects.toMatchObject({ name: "NotFoundError" });
    await expect(links.create("elsewhere", "checkout", { url: "example.com" }, alice)).rejects.toMatchObject({ name: "NotFoundError" });
    await slice.features.create("default", { name: "other" }, alice);
    const foreign = await links.create("default", "other", { url: "example.com" }, alice);
    await expect(links.remove("default", "checkout", foreign.id, alice)).rejects.toMatchObject({ name: "NotFoundError" });
    await expect(links.update("default", "checkout", "no-such-id", { url: "example.com" }, alice)).rejects.toMatchObject({
      name: "NotFoundError",
    });

    for (let i = 0; i < maxLinksPerFlag; i++) await links.create("default", "checkout", { url: `example.com/${i}` }, alice);
    await expect(links.create("default", "checkout", { url: "example.com/more" }, alice)).rejects.toMatchObject({
      name: "NoAccessError",
      message: "Too many links (10) exist for this feature",
    });
    expect((await links.linksOf(["checkout"])).get("checkout")).toHaveLength(maxLinksPerFlag);
  });

  it("removes a deleted flag's links in the delete's transaction", async () => {
    await links.create("default", "checkout", { url: "example.com" }, alice);
    slice.features.addRemovalStep({ deleted: (tx, names) => links.removeLinksOfDeleted(tx, names) });
    await slice.features.archive("default", ["checkout"], alice);
    expect((await links.linksOf(["checkout"])).get("checkout")).toHaveLength(1);
    await slice.features.deleteArchived("default", ["checkout"], alice);
    expect((await links.linksOf(["checkout"])).get("checkout")).toBeUndefined();
  });
});
