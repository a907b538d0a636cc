import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Collection, type StoreEngine } from "@vexil/store";
import { tempEngine, type TempEngine } from "@vexil/store/testing";
import { createEnvironmentStore } from "../environments/environment-store.js";
import { EventStore } from "../events/event-store.js";
import { UnitOfWork } from "../events/unit-of-work.js";
import { alice } from "../features/feature-slice.fixture.js";
import { createFavoriteStore, type FavoriteStore } from "../features/feature-store.js";
import { ProjectService } from "./project-service.js";
import { createProjectStore } from "./project-store.js";

describe("ProjectService", () => {
  let temp: TempEngine;
  let engine: StoreEngine;
  let events: EventStore;
  let favorites: FavoriteStore;
  let projects: ProjectService;
  /** Stands in for the flags the feature slice keeps: project → how many are live, and the archived ones. */
  let liveFlags: Map<string, number>;
  let archivedFlags: Collection<{ _id: string; project: string }>;
  let failArchivedRemoval: boolean;
  const now = new Date("2030-01-01T00:00:00.000Z");

  const eventTypes = async () => (await events.list()).events.map((e) => e.type).reverse();

  beforeEach(async () => {
    temp = await tempEngine("projects");
    engine = temp.engine;
    events = await EventStore.create(engine, () => now);
    const environments = createEnvironmentStore(engine);
    for (const [name, sortOrder, enabled] of [
      ["production", 3, true],
      ["development", 2, true],
      ["staging", 4, false],
    ] as const) {
      await environments.insert({ _id: name, type: name, enabled, sortOrder, protected: false, createdAt: now });
    }
    favorites = await createFavoriteStore(engine, "project_favorites");
    liveFlags = new Map();
    archivedFlags = engine.collection("test_archived_flags");
    failArchivedRemoval = false;
    projects = new ProjectService({
      projects: await createProjectStore(engine),
      environments,
      features: {
        countLive: async (project) => liveFlags.get(project) ?? 0,
        deleteArchived: async (project, session) => {
          await archivedFlags.deleteMany({ project }, { session });
          if (failArchivedRemoval) throw new Error("store went away");
        },
      },
      collaboration: { members: async () => 0, changeRequestsEnabled: async (_project, environment) => environment === "production" },
      favorites,
      strategyExists: async (name) => ["default", "flexibleRollout"].includes(name),
      unitOfWork: new UnitOfWork(engine, events),
      clock: () => now,
    });
  });
  afterEach(async () => {
    await temp.remove();
  });

  it("creates a project in every enabled environment by default, in display order", async () => {
    const doc = await projects.create({ id: "web", name: "Web" }, alice);
    expect(doc).toMatchObject({
      _id: "web",
      name: "Web",
      description: null,
      mode: "open",
      defaultStickiness: "default",
      featureLimit: null,
    });
    expect(await projects.environmentViews("web")).toEqual([
      { name: "development", type: "development", sortOrder: 2 },
      { name: "production", type: "production", sortOrder: 3 },
    ]);
    expect(await projects.environmentEntries("web")).toEqual([
      { environment: "development", changeRequestsEnabled: false },
      { environment: "production", changeRequestsEnabled: true },
    ]);
    const { events: created } = await events.list({ type: "project-created" });
    expect(created[0]).toMatchObject({ project: "web", data: { environments: ["development", "production"] } });
  });

  it("refuses a taken id, an id unfit for paths, a bad naming pattern and an unknown environment, writing nothing", async () => {
    await projects.create({ id: "web", name: "Web" }, alice);
    await expect(projects.create({ id: "web", name: "Again" }, alice)).rejects.toMatchObject({ name: "NameExistsError" });
    await expect(projects.create({ id: "no spaces", name: "x" }, alice)).rejects.toMatchObject({ name: "ValidationError" });
    await expect(projects.create({ id: "regex", name: "x", featureNaming: { pattern: "[" } }, alice)).rejects.toMatchObject({
      name: "ValidationError",
    });
    await expect(projects.create({ id: "lost", name: "x", environments: ["development", "moon"] }, alice)).rejects.toMatchObject({
      name: "NotFoundError",
    });
    expect((await projects.list()).map((p) => p._id)).toEqual(["web"]);
    expect(await projects.exists("lost")).toBe(false);
    expect(await eventTypes()).toEqual(["project-created"]);
  });

  it("updates the fields given and keeps the rest", async () => {
    await projects.create({ id: "web", name: "Web", description: "Shop", featureLimit: 5 }, alice);
    const after = await projects.update("web", { name: "Website", mode: "protected" }, alice);
    expect(after).toMatchObject({ name: "Website", description: "Shop", featureLimit: 5, mode: "protected", updatedAt: now });
    expect(await projects.get("web")).toEqual(after);
    await expect(projects.update("nowhere", { name: "x" }, alice)).rejects.toMatchObject({ name: "NotFoundError" });
    const { events: updated } = await events.list({ type: "project-updated" });
    expect(updated.map((e) => [(e.preData as { name: string }).name, (e.data as { name: string }).name])).toEqual([["Web", "Website"]]);
  });

  it("deletes a project with its archived flags and favorites, never default nor one with live flags", async () => {
    await projects.create({ id: "default", name: "Default" }, alice);
    await projects.create({ id: "web", name: "Web" }, alice);
    await archivedFlags.insertMany([
      { _id: "old", project: "web" },
      { _id: "kept", project: "default" },
    ]);
    await projects.setFavorite("web", true, alice);
    await expect(projects.delete("default", alice)).rejects.toMatchObject({ name: "ValidationError" });
    liveFlags.set("web", 2);
    await expect(projects.delete("web", alice)).rejects.toMatchObject({
      name: "NameExistsError",
      message: expect.stringMatching(/2 feature/),
    });

    liveFlags.delete("web");
    await projects.delete("web", alice);
    await expect(projects.get("web")).rejects.toMatchObject({ name: "NotFoundError" });
    expect((await archivedFlags.find({})).map((f) => f._id)).toEqual(["kept"]);
    expect(await projects.favorites(alice.userId)).toEqual(new Set());
    await expect(projects.delete("web", alice)).rejects.toMatchObject({ name: "NotFoundError" });
    expect((await events.list({ project: "web" })).events.map((e) => e.type)).toEqual([
      "project-deleted",
      "project-favorited",
      "project-created",
    ]);
  });

  it("leaves the project and its archived flags whole when a deletion fails part way", async () => {
    await projects.create({ id: "web", name: "Web" }, alice);
    await archivedFlags.insertOne({ _id: "old", project: "web" });
    failArchivedRemoval = true;
    await expect(projects.delete("web", alice)).rejects.toThrow("store went away");
    expect(await projects.exists("web")).toBe(true);
    expect(await archivedFlags.find({})).toEqual([{ _id: "old", project: "web" }]);
    expect(await eventTypes()).toEqual(["project-created"]);
  });

  it("adds and removes environments, keeping at least one", async () => {
    await projects.create({ id: "web", name: "Web", environments: ["development"] }, alice);
    await projects.addEnvironment("web", "staging", undefined, alice);
    await expect(projects.addEnvironment("web", "staging", undefined, alice)).rejects.toMatchObject({ name: "NameExistsError" });
    await expect(projects.addEnvironment("web", "moon", undefined, alice)).rejects.toMatchObject({ name: "NotFoundError" });
    await expect(projects.addEnvironment("nowhere", "staging", undefined, alice)).rejects.toMatchObject({ name: "NotFoundError" });
    await expect(
      projects.addEnvironment("web", "production", { name: "unknown", constraints: [], parameters: {} }, alice),
    ).rejects.toMatchObject({ name: "ValidationError", message: "Strategy unknown is not defined" });
    expect((await projects.environmentViews("web")).map((e) => e.name)).toEqual(["development", "staging"]);

    await projects.removeEnvironment("web", "staging", alice);
    await expect(projects.removeEnvironment("web", "staging", alice)).rejects.toMatchObject({ name: "NotFoundError" });
    await expect(projects.removeEnvironment("web", "development", alice)).rejects.toMatchObject({
      name: "ValidationError",
      message: expect.stringMatching(/at least one environment/),
    });
    expect(await eventTypes()).toEqual(["project-created", "project-environment-added", "project-environment-removed"]);
  });

  it("gives new flags the configured default strategy, or a full rollout with the project's stickiness", async () => {
    await projects.create({ id: "web", name: "Web", defaultStickiness: "sessionId" }, alice);
    expect(await projects.defaultStrategy("web", "production")).toMatchObject({
      name: "flexibleRollout",
      parameters: { rollout: "100", stickiness: "sessionId", groupId: "" },
    });
    const stored = await projects.setDefaultStrategy("web", "production", { name: "default", parameters: {} }, alice);
    expect(stored).toEqual({ name: "default", title: null, disabled: false, constraints: [], variants: [], parameters: {}, segments: [] });
    expect(await projects.defaultStrategy("web", "production")).toEqual(stored);
    expect(await projects.environmentEntries("web")).toContainEqual({
      environment: "production",
      changeRequestsEnabled: true,
      defaultStrategy: stored,
    });
    await expect(projects.setDefaultStrategy("web", "staging", { name: "default" }, alice)).rejects.toMatchObject({
      name: "NotFoundError",
    });
    await expect(projects.setDefaultStrategy("web", "production", { name: "unknown" }, alice)).rejects.toMatchObject({
      name: "ValidationError",
    });
    await expect(projects.defaultStrategy("web", "staging")).rejects.toMatchObject({ name: "NotFoundError" });
    const { events: updated } = await events.list({ type: "default-strategy-updated" });
    expect(updated.map((e) => [e.environment, e.preData])).toEqual([["production", null]]);
  });

  it("records a favorite once, and refuses one for an unknown project", async () => {
    await projects.create({ id: "web", name: "Web" }, alice);
    await projects.setFavorite("web", true, alice);
    await projects.setFavorite("web", true, alice);
    expect(await projects.favorites(alice.userId)).toEqual(new Set(["web"]));
    await projects.setFavorite("web", false, alice);
    await projects.setFavorite("web", false, alice);
    await expect(projects.setFavorite("nowhere", true, alice)).rejects.toMatchObject({ name: "NotFoundError" });
    expect(await eventTypes()).toEqual(["project-created", "project-favorited", "project-unfavorited"]);
  });
});
