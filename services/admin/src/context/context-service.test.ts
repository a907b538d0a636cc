import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempEngine, type TempEngine } from "@vexil/store/testing";
import { EventStore } from "../events/event-store.js";
import { UnitOfWork } from "../events/unit-of-work.js";
import { alice } from "../features/feature-slice.fixture.js";
import { builtInContextFields } from "./built-in-context-fields.js";
import { createContextFieldStore } from "./context-field-store.js";
import { ContextService } from "./context-service.js";

describe("ContextService", () => {
  let temp: TempEngine;
  let events: EventStore;
  let context: ContextService;
  const now = new Date("2030-01-01T00:00:00.000Z");
  const eventTypes = async () => (await events.list()).events.map((e) => e.type).reverse();

  beforeEach(async () => {
    temp = await tempEngine("context");
    events = await EventStore.create(temp.engine, () => now);
    context = new ContextService({
      contextFields: createContextFieldStore(temp.engine),
      features: { listAll: async () => [], find: async () => null },
      unitOfWork: new UnitOfWork(temp.engine, events),
      clock: () => now,
    });
  });
  afterEach(() => temp.remove());

  it("gives a new installation the built-in fields once, without an event", async () => {
    await context.seedBuiltIns();
    await context.seedBuiltIns();
    expect((await context.list()).map((f) => f.name).sort()).toEqual(builtInContextFields.map((f) => f.name).sort());
    expect(await eventTypes()).toEqual([]);
  });

  it("creates a field with its legal values, refuses a second of the same name, and deletes it", async () => {
    await context.create({ name: "region", description: "where", legalValues: [{ value: "eu" }, { value: "us" }] }, alice);
    expect(await context.get("region")).toMatchObject({
      name: "region",
      stickiness: false,
      legalValues: [{ value: "eu" }, { value: "us" }],
    });
    expect((await context.legalValues()).get("region")).toEqual(["eu", "us"]);
    await expect(context.create({ name: "region" }, alice)).rejects.toMatchObject({ name: "NameExistsError" });
    await expect(context.validateName("region")).rejects.toMatchObject({ name: "NameExistsError" });
    await context.delete("region", alice);
    await expect(context.get("region")).rejects.toMatchObject({ name: "NotFoundError" });
    await expect(context.delete("region", alice)).rejects.toMatchObject({ name: "NotFoundError" });
    expect(await eventTypes()).toEqual(["context-field-created", "context-field-deleted"]);
  });

  it("updates a field but never renames it", async () => {
    await context.create({ name: "region" }, alice);
    await context.update("region", { name: "region", stickiness: true }, alice);
    expect((await context.get("region")).stickiness).toBe(true);
    await expect(context.update("region", { name: "area" }, alice)).rejects.toMatchObject({ name: "ValidationError" });
    await expect(context.update("missing", { name: "missing" }, alice)).rejects.toMatchObject({ name: "NotFoundError" });
  });
});
