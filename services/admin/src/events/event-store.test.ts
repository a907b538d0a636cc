import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type FindOptions, type StoreEngine } from "@vexil/store";
import { tempEngine, type TempEngine } from "@vexil/store/testing";
import { createLogger } from "@vexil/logger";
import { startRetention } from "@vexil/runtime";
import { systemActor } from "../access/actor.js";
import { EventStore } from "./event-store.js";
import { UnitOfWork } from "./unit-of-work.js";

const day = 24 * 60 * 60 * 1000;

describe("EventStore", () => {
  let temp: TempEngine;
  let engine: StoreEngine;
  let now: Date;
  let events: EventStore;
  let unitOfWork: UnitOfWork;

  beforeEach(async () => {
    temp = await tempEngine("events");
    engine = temp.engine;
    now = new Date("2025-01-01T00:00:00Z");
    events = await EventStore.create(engine, () => now);
    unitOfWork = new UnitOfWork(engine, events);
  });
  afterEach(async () => {
    await temp.remove();
  });

  const write = (featureName: string, project = "default") =>
    unitOfWork.run((tx) => tx.record({ type: "feature-created", actor: systemActor, project, featureName }));

  it("takes event ids inside the transaction: a rolled-back change leaves no gap", async () => {
    await write("a");
    await expect(
      unitOfWork.run(async (tx) => {
        await tx.record({ type: "feature-created", actor: systemActor, featureName: "ghost" });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    await write("b");
    const { events: page } = await events.list();
    expect(page.map((event) => [event._id, event.featureName])).toEqual([
      [2, "b"],
      [1, "a"],
    ]);
    expect(await events.latestId()).toBe(2);
    expect(await events.between(0, 2)).toEqual([
      { _id: 1, type: "feature-created", featureName: "a" },
      { _id: 2, type: "feature-created", featureName: "b" },
    ]);
  });

  it("leaves hidden projects' events out of every listing and its total, and keeps events of no project", async () => {
    await write("open-flag", "default");
    await write("secret-flag", "secret");
    await unitOfWork.run((tx) => tx.record({ type: "segment-created", actor: systemActor, data: { name: "everyone" } }));
    const hiddenProjects = ["secret"];
    const all = await events.list({ hiddenProjects });
    expect(all.events.map((e) => e.featureName ?? e.type)).toEqual(["segment-created", "open-flag"]);
    expect(all.total).toBe(2);
    expect(await events.list({ hiddenProjects, project: "secret" })).toEqual({ events: [], total: 0 });
    expect((await events.list({ hiddenProjects, featureName: "secret-flag" })).total).toBe(0);
    expect((await events.list({ hiddenProjects, project: "default" })).events.map((e) => e.featureName)).toEqual(["open-flag"]);
    expect((await events.list({ project: "secret" })).total).toBe(1);
  });

  it("totals the whole log from the collection's size and a filtered page by its filter", async () => {
    for (const name of ["a", "b", "c"]) await write(name, name === "c" ? "other" : "default");
    const collection = engine.collection("events");
    const counted = vi.spyOn(collection.constructor.prototype, "countDocuments");
    const estimated = vi.spyOn(collection.constructor.prototype, "estimatedDocumentCount");
    expect((await events.list({ limit: 1 })).total).toBe(3);
    expect(counted).not.toHaveBeenCalled();
    expect(estimated).toHaveBeenCalledTimes(1);
    expect((await events.list({ project: "default", limit: 1 })).total).toBe(2);
    expect(counted).toHaveBeenCalledTimes(1);
    counted.mockRestore();
    estimated.mockRestore();
  });

  it("prunes events older than the retention, always keeping the newest", async () => {
    await write("old");
    now = new Date(now.getTime() + 10 * day);
    await write("recent");
    now = new Date(now.getTime() + 400 * day);
    const retention = startRetention({
      what: "the event log",
      days: 30,
      prune: (before) => events.prune(before),
      clock: () => now,
      logger: createLogger({ service: "test", level: "silent" }),
    });
    retention.stop();
    // Both are older than 30 days; the newest stays as the revision a restart starts from.
    await vi.waitFor(async () => expect((await events.list()).events.map((event) => event.featureName)).toEqual(["recent"]));
    await write("new");
    expect(await retention.prune()).toBe(1);
    expect((await events.list()).events.map((event) => event.featureName)).toEqual(["new"]);
  });

  it("keeps every event when the retention is 0", async () => {
    await write("a");
    now = new Date(now.getTime() + 5000 * day);
    await write("b");
    const retention = startRetention({
      what: "the event log",
      days: 0,
      prune: (before) => events.prune(before),
      clock: () => now,
      logger: createLogger({ service: "test", level: "silent" }),
    });
    retention.stop();
    expect(await retention.prune()).toBe(0);
    expect((await events.list()).total).toBe(2);
  });

  it("reads whatever it hands out by id (latest id, resumes, the publisher's gaps, the outbox) majority-committed", async () => {
    await write("a");
    await write("b");
    const reads: Array<{ collection: string; readConcern: unknown }> = [];
    const recording: StoreEngine = Object.create(engine, {
      collection: {
        value: (name: string) => {
          const collection = engine.collection(name);
          const record =
            (method: "find" | "findOne") =>
            (filter: Record<string, unknown>, options: FindOptions = {}) => {
              reads.push({ collection: name, readConcern: options.readConcern });
              return collection[method](filter, options);
            };
          return Object.assign(Object.create(collection), { find: record("find"), findOne: record("findOne") });
        },
      },
    });
    const tailed = await EventStore.create(recording, () => now);
    expect(await tailed.latestId()).toBe(2);
    expect((await tailed.since(0, 10)).map((event) => event._id)).toEqual([1, 2]);
    expect((await tailed.between(1, 2)).map((event) => event._id)).toEqual([2]);
    expect((await tailed.pending(10)).map((event) => event.id)).toEqual(["1", "2"]);
    expect(reads.map((read) => read.collection)).toEqual(["events", "events", "events", "event_outbox"]);
    expect(reads.every((read) => read.readConcern === "majority")).toBe(true);
  });
});
