import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempEngine, type TempEngine } from "@vexil/store/testing";
import { EventStore } from "../events/event-store.js";
import { UnitOfWork } from "../events/unit-of-work.js";
import { alice } from "../features/feature-slice.fixture.js";
import { EnvironmentService } from "./environment-service.js";
import { createEnvironmentStore, type EnvironmentStore } from "./environment-store.js";

describe("EnvironmentService", () => {
  let temp: TempEngine;
  let store: EnvironmentStore;
  let events: EventStore;
  let environments: EnvironmentService;
  /** The projects that have each environment enabled, as the project slice would answer. */
  const enabledIn = new Map<string, string[]>();
  const now = new Date("2030-01-01T00:00:00.000Z");
  const eventTypes = async () => (await events.list()).events.map((e) => e.type).reverse();

  beforeEach(async () => {
    temp = await tempEngine("environments");
    store = createEnvironmentStore(temp.engine);
    events = await EventStore.create(temp.engine, () => now);
    enabledIn.clear();
    environments = new EnvironmentService({
      environments: store,
      projectsWith: async (environment) => enabledIn.get(environment) ?? [],
      unitOfWork: new UnitOfWork(temp.engine, events),
      clock: () => now,
    });
    await store.insert({ _id: "protected-env", type: "production", enabled: true, protected: true, sortOrder: 5, createdAt: now });
  });
  afterEach(() => temp.remove());

  it("creates an environment after the last one, records it, and refuses a second of the same name", async () => {
    const created = await environments.create({ name: "staging", type: "test" }, alice);
    expect(created).toEqual({ name: "staging", type: "test", enabled: true, protected: false, sortOrder: 6 });
    expect(await environments.get("staging")).toEqual(created);
    await expect(environments.create({ name: "staging", type: "test" }, alice)).rejects.toMatchObject({ name: "NameExistsError" });
    await expect(environments.create({ name: "has space", type: "test" }, alice)).rejects.toMatchObject({ status: 400 });
    expect(await eventTypes()).toEqual(["environment-created"]);
  });

  it("changes an environment but never a protected one", async () => {
    await environments.create({ name: "staging", type: "test" }, alice);
    expect(await environments.update("staging", { type: "development" }, alice)).toMatchObject({ type: "development", sortOrder: 6 });
    expect(await environments.setEnabled("staging", false, alice)).toMatchObject({ enabled: false });
    await expect(environments.update("protected-env", { type: "test" }, alice)).rejects.toMatchObject({ name: "ValidationError" });
    await expect(environments.update("missing", { type: "test" }, alice)).rejects.toMatchObject({ name: "NotFoundError" });
    expect((await environments.get("protected-env")).type).toBe("production");
  });

  it("sorts all named environments or none", async () => {
    await environments.create({ name: "staging", type: "test" }, alice);
    await expect(environments.sort({ staging: 1, missing: 2 }, alice)).rejects.toMatchObject({ name: "NotFoundError" });
    expect((await environments.get("staging")).sortOrder).toBe(6);
    await environments.sort({ staging: 1, "protected-env": 2 }, alice);
    expect((await environments.list()).map((e) => [e.name, e.sortOrder])).toEqual(
      expect.arrayContaining([
        ["staging", 1],
        ["protected-env", 2],
      ]),
    );
  });

  it("deletes an environment no project uses, never a protected or used one", async () => {
    await environments.create({ name: "staging", type: "test" }, alice);
    enabledIn.set("staging", ["web"]);
    await expect(environments.delete("staging", alice)).rejects.toThrow(/enabled in project\(s\) web/);
    await expect(environments.delete("protected-env", alice)).rejects.toMatchObject({ name: "ValidationError" });
    enabledIn.clear();
    await environments.delete("staging", alice);
    expect(await environments.exists("staging")).toBe(false);
    await expect(environments.delete("staging", alice)).rejects.toMatchObject({ name: "NotFoundError" });
    expect(await eventTypes()).toEqual(["environment-created", "environment-deleted"]);
  });
});
