import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StoreEngine } from "@vexil/store";
import { tempEngine, type TempEngine } from "@vexil/store/testing";
import { EventStore } from "../events/event-store.js";
import { UnitOfWork } from "../events/unit-of-work.js";
import type { FeatureDocument } from "../features/feature-model.js";
import { alice, featureDocument } from "../features/feature-slice.fixture.js";
import { TagService } from "./tag-service.js";
import { createTagStore } from "./tag-store.js";

describe("TagService", () => {
  let temp: TempEngine;
  let engine: StoreEngine;
  let events: EventStore;
  let tags: TagService;
  const flags = new Map<string, FeatureDocument>();
  const now = new Date("2030-01-01T00:00:00.000Z");

  /** Every event type recorded so far, oldest first. */
  const eventTypes = async () => (await events.list()).events.map((e) => e.type).reverse();

  beforeEach(async () => {
    temp = await tempEngine("tags");
    engine = temp.engine;
    events = await EventStore.create(engine, () => now);
    flags.clear();
    for (const name of ["checkout", "search"]) flags.set(name, featureDocument(name, { project: name === "search" ? "web" : "default" }));
    tags = new TagService({
      tags: await createTagStore(engine),
      features: { listAll: async () => [...flags.values()], find: async (name) => flags.get(name) ?? null },
      unitOfWork: new UnitOfWork(engine, events),
      clock: () => now,
    });
    await tags.seedBuiltIns();
  });
  afterEach(async () => {
    await temp.remove();
  });

  it("starts with the simple tag type, once, without an event", async () => {
    await tags.seedBuiltIns();
    expect((await tags.listTypes()).map((t) => t.name)).toEqual(["simple"]);
    expect(await eventTypes()).toEqual([]);
  });

  it("creates, updates and deletes a tag type, refusing a taken name, a rename and an unknown type", async () => {
    await tags.createType({ name: "team", description: "Owning team" }, alice);
    await expect(tags.createType({ name: "team" }, alice)).rejects.toMatchObject({ name: "NameExistsError" });
    await expect(tags.validateTypeName("team")).rejects.toMatchObject({ name: "NameExistsError" });
    await expect(tags.updateType("team", { name: "squad" }, alice)).rejects.toMatchObject({ name: "ValidationError" });
    await expect(tags.updateType("nobody", { description: "x" }, alice)).rejects.toMatchObject({ name: "NotFoundError" });

    await tags.updateType("team", { color: "#000000" }, alice);
    // Fields left out keep their values.
    expect(await tags.getType("team")).toEqual({ name: "team", description: "Owning team", icon: null, color: "#000000" });

    await tags.create({ type: "team", value: "payments" }, alice);
    await tags.addFeatureTag("checkout", { type: "team", value: "payments" }, alice);
    await tags.deleteType("team", alice);
    await expect(tags.getType("team")).rejects.toMatchObject({ name: "NotFoundError" });
    // The type's tags and their places on flags go with it.
    expect(await tags.list()).toEqual([]);
    expect(await tags.featureTags("checkout")).toEqual([]);
    await expect(tags.deleteType("team", alice)).rejects.toMatchObject({ name: "NotFoundError" });
    expect(await eventTypes()).toEqual(["tag-type-created", "tag-type-updated", "tag-created", "feature-tagged", "tag-type-deleted"]);
  });

  it("creates tags of known types only, and deleting an absent tag is a no-op", async () => {
    await tags.create({ type: "simple", value: "beta" }, alice);
    await expect(tags.create({ type: "simple", value: "beta" }, alice)).rejects.toMatchObject({ name: "NameExistsError" });
    await expect(tags.create({ type: "nope", value: "beta" }, alice)).rejects.toMatchObject({
      name: "ValidationError",
      message: expect.stringMatching(/^Invalid body\.type/),
    });
    await expect(tags.listByType("nope")).rejects.toMatchObject({ name: "NotFoundError" });
    expect(await tags.listByType("simple")).toEqual([{ type: "simple", value: "beta" }]);

    await tags.delete("simple", "absent", alice);
    await expect(tags.delete("nope", "beta", alice)).rejects.toMatchObject({ name: "NotFoundError" });
    await tags.delete("simple", "beta", alice);
    await expect(tags.get("simple", "beta")).rejects.toMatchObject({ name: "NotFoundError" });
    expect(await eventTypes()).toEqual(["tag-created", "tag-deleted"]);
  });

  it("tags a flag once, creating the tag, and records the flag's tags with each change", async () => {
    await tags.addFeatureTag("search", { type: "simple", value: "beta" }, alice);
    await tags.addFeatureTag("search", { type: "simple", value: "beta" }, alice);
    expect(await tags.featureTags("search")).toEqual([{ type: "simple", value: "beta" }]);
    await expect(tags.addFeatureTag("missing", { type: "simple", value: "beta" }, alice)).rejects.toMatchObject({ name: "NotFoundError" });

    await tags.removeFeatureTag("search", { type: "simple", value: "beta" }, alice);
    await tags.removeFeatureTag("search", { type: "simple", value: "beta" }, alice);
    expect(await tags.featureTags("search")).toEqual([]);
    // The tag itself stays: only its place on the flag went.
    expect(await tags.list()).toEqual([{ type: "simple", value: "beta" }]);

    const { events: recorded } = await events.list({ featureName: "search" });
    expect(recorded.map((e) => [e.type, e.project, e.tags])).toEqual([
      ["feature-untagged", "web", [{ type: "simple", value: "beta" }]],
      ["feature-tagged", "web", [{ type: "simple", value: "beta" }]],
    ]);
  });

  it("applies a tag update all or nothing: one unknown type leaves the flag as it was", async () => {
    await tags.addFeatureTag("checkout", { type: "simple", value: "old" }, alice);
    await expect(
      tags.updateFeatureTags(
        "checkout",
        {
          addedTags: [
            { type: "simple", value: "new" },
            { type: "nope", value: "x" },
          ],
          removedTags: [{ type: "simple", value: "old" }],
        },
        alice,
      ),
    ).rejects.toMatchObject({ name: "ValidationError", message: expect.stringMatching(/^Invalid body\.addedTags\.1\.type/) });
    expect(await tags.featureTags("checkout")).toEqual([{ type: "simple", value: "old" }]);
    expect(await tags.list()).toEqual([{ type: "simple", value: "old" }]);
    expect(await eventTypes()).toEqual(["tag-created", "feature-tagged"]);

    const after = await tags.updateFeatureTags(
      "checkout",
      { addedTags: [{ type: "simple", value: "new" }], removedTags: [{ type: "simple", value: "old" }] },
      alice,
    );
    expect(after).toEqual([{ type: "simple", value: "new" }]);
  });

  it("answers which flags carry which tags, for many flags in one read", async () => {
    await tags.addFeatureTag("checkout", { type: "simple", value: "a" }, alice);
    await tags.addFeatureTag("checkout", { type: "simple", value: "b" }, alice);
    await tags.addFeatureTag("search", { type: "simple", value: "b" }, alice);
    expect(await tags.flagsTagged([])).toEqual(new Map());
    expect(await tags.flagsTagged([{ type: "simple", value: "a" }])).toEqual(new Map([["checkout", new Set(["simple:a"])]]));
    const many = await tags.tagsOfMany(["checkout", "search", "none"]);
    expect(many.get("checkout")).toEqual([
      { type: "simple", value: "a" },
      { type: "simple", value: "b" },
    ]);
    expect(many.get("search")).toEqual([{ type: "simple", value: "b" }]);
    expect(many.has("none")).toBe(false);
  });
});
