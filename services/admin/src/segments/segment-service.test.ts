import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Constraint } from "@vexil/contracts";
import type { StoreEngine } from "@vexil/store";
import { tempEngine, type TempEngine } from "@vexil/store/testing";
import { createConstraintValidator } from "../constraints/constraint-validation.js";
import { EventStore } from "../events/event-store.js";
import { UnitOfWork } from "../events/unit-of-work.js";
import type { FeatureDocument } from "../features/feature-model.js";
import { alice, featureDocument, strategyDocument } from "../features/feature-slice.fixture.js";
import { segmentLimits } from "./segment-limits.js";
import { SegmentService, type ProposedStrategy } from "./segment-service.js";
import { createSegmentStore } from "./segment-store.js";

const now = new Date("2030-01-01T00:00:00.000Z");
const inRegion = (...values: string[]): Constraint => ({ contextName: "region", operator: "IN", values });

/** A flag in `project` whose one production strategy uses these segments. */
function flagUsing(name: string, project: string, segments: number[]): FeatureDocument {
  const strategy = strategyDocument({ id: `${name}-strategy`, segments, createdAt: now });
  return featureDocument(name, {
    project,
    environments: { production: { enabled: true, strategies: [strategy], variants: [], lastSeenAt: null } },
  });
}

describe("SegmentService", () => {
  let temp: TempEngine;
  let engine: StoreEngine;
  let events: EventStore;
  let segments: SegmentService;
  let flags: FeatureDocument[];
  let proposed: ProposedStrategy[];

  const eventTypes = async () => (await events.list()).events.map((e) => e.type).reverse();

  beforeEach(async () => {
    temp = await tempEngine("segments");
    engine = temp.engine;
    events = await EventStore.create(engine, () => now);
    flags = [];
    proposed = [];
    segments = new SegmentService({
      segments: await createSegmentStore(engine),
      features: { listAll: async () => flags, find: async (name) => flags.find((f) => f._id === name) ?? null },
      proposedStrategies: async () => proposed,
      projects: { exists: async (project) => ["default", "web"].includes(project) },
      validateConstraints: createConstraintValidator({ legalValues: async () => new Map([["region", ["eu", "us"]]]) }),
      unitOfWork: new UnitOfWork(engine, events),
      nextId: () => engine.nextSequence("segments"),
      clock: () => now,
      limits: segmentLimits({ UNLEASH_SEGMENT_VALUES_LIMIT: 3, UNLEASH_STRATEGY_SEGMENTS_LIMIT: 2 }),
    });
  });
  afterEach(async () => {
    await temp.remove();
  });

  it("creates a segment with the next id and records it; a taken name is refused", async () => {
    const created = await segments.create({ name: "europe", constraints: [inRegion("eu")] }, alice);
    expect(created).toEqual({
      id: 1,
      name: "europe",
      description: null,
      constraints: [inRegion("eu")],
      createdBy: "alice",
      createdAt: now.toISOString(),
      usedInFeatures: 0,
      usedInProjects: 0,
    });
    await expect(segments.create({ name: "europe", constraints: [] }, alice)).rejects.toMatchObject({ name: "NameExistsError" });
    await expect(segments.validateName("europe")).rejects.toMatchObject({ name: "NameExistsError" });
    // The refused creation drew id 2: sequences are not rolled back, so ids are never reused.
    expect((await segments.create({ name: "web-only", project: "web", constraints: [] }, alice)).id).toBe(3);
    const { events: recorded } = await events.list({ type: "segment-created" });
    expect(recorded.map((e) => [e.project, (e.data as { name: string }).name])).toEqual([
      ["web", "web-only"],
      [null, "europe"],
    ]);
  });

  it("lets one of two creations with the same name win", async () => {
    const results = await Promise.allSettled([
      segments.create({ name: "twin", constraints: [] }, alice),
      segments.create({ name: "twin", constraints: [] }, alice),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect(results.find((r) => r.status === "rejected")).toMatchObject({ reason: { name: "NameExistsError" } });
    expect((await segments.listAll()).map((s) => s.name)).toEqual(["twin"]);
    expect(await eventTypes()).toEqual(["segment-created"]);
  });

  it("refuses an unknown project, too many values and an illegal constraint, naming the field", async () => {
    await expect(segments.create({ name: "a", project: "nowhere", constraints: [] }, alice)).rejects.toMatchObject({
      name: "ValidationError",
      message: expect.stringMatching(/^Invalid body\.project/),
    });
    await expect(segments.create({ name: "b", constraints: [inRegion("eu", "us"), inRegion("eu", "us")] }, alice)).rejects.toMatchObject({
      name: "ValidationError",
      message: expect.stringMatching(/^Invalid body\.constraints: a segment may hold at most 3/),
    });
    await expect(segments.create({ name: "c", constraints: [inRegion("mars")] }, alice)).rejects.toMatchObject({
      name: "ValidationError",
      message: expect.stringMatching(/^Invalid body\.constraints\.0\.values/),
    });
    await expect(segments.listForProject("nowhere")).rejects.toMatchObject({ name: "NotFoundError" });
    expect(await segments.listAll()).toEqual([]);
    expect(await eventTypes()).toEqual([]);
  });

  it("updates a segment, keeping an omitted description, and leaves it whole when the new name is taken", async () => {
    const { id } = await segments.create({ name: "europe", description: "EU", constraints: [inRegion("eu")] }, alice);
    await segments.create({ name: "america", constraints: [] }, alice);
    await segments.update(id, { name: "emea", constraints: [inRegion("eu", "us")] }, alice);
    expect(await segments.get(id)).toMatchObject({ name: "emea", description: "EU", constraints: [inRegion("eu", "us")] });
    expect((await segments.getDocument(id)).version).toBe(2);

    await expect(segments.update(id, { name: "america", constraints: [] }, alice)).rejects.toMatchObject({ name: "NameExistsError" });
    expect(await segments.get(id)).toMatchObject({ name: "emea", constraints: [inRegion("eu", "us")] });
    await expect(segments.update(99, { name: "ghost", constraints: [] }, alice)).rejects.toMatchObject({ name: "NotFoundError" });
    expect(await eventTypes()).toEqual(["segment-created", "segment-created", "segment-updated"]);
  });

  it("counts the flags and projects using a segment, open change requests included", async () => {
    const { id } = await segments.create({ name: "europe", constraints: [] }, alice);
    flags = [flagUsing("checkout", "default", [id]), flagUsing("search", "web", [id]), flagUsing("other", "web", [])];
    proposed = [
      {
        projectId: "web",
        featureName: "other",
        strategyName: "default",
        environment: "production",
        segments: [id],
        changeRequest: { id: 4, title: "Use europe" },
      },
    ];
    expect(await segments.get(id)).toMatchObject({ usedInFeatures: 3, usedInProjects: 2 });
    const using = await segments.strategiesUsing(id);
    expect(using.strategies.map((s) => [s.featureName, s.projectId, s.environment])).toEqual([
      ["checkout", "default", "production"],
      ["search", "web", "production"],
    ]);
    expect(using.changeRequestStrategies).toEqual([
      {
        projectId: "web",
        featureName: "other",
        strategyName: "default",
        environment: "production",
        changeRequest: { id: 4, title: "Use europe" },
      },
    ]);
  });

  it("will not move a segment into a project while flags elsewhere use it, nor delete a used one", async () => {
    const { id } = await segments.create({ name: "europe", constraints: [] }, alice);
    flags = [flagUsing("checkout", "default", [id])];
    await expect(segments.update(id, { name: "europe", project: "web", constraints: [] }, alice)).rejects.toMatchObject({
      name: "ValidationError",
      message: expect.stringMatching(/used by flags outside project web \(checkout\)/),
    });
    await segments.update(id, { name: "europe", project: "default", constraints: [] }, alice);
    await expect(segments.delete(id, alice)).rejects.toMatchObject({ name: "NameExistsError", message: expect.stringMatching(/in use/) });

    flags = [];
    await segments.delete(id, alice);
    await expect(segments.get(id)).rejects.toMatchObject({ name: "NotFoundError" });
    await expect(segments.delete(id, alice)).rejects.toMatchObject({ name: "NotFoundError" });
    expect(await eventTypes()).toEqual(["segment-created", "segment-updated", "segment-deleted"]);
  });

  it("lets a strategy use only existing segments that are global or its project's, up to the limit", async () => {
    const global = await segments.create({ name: "global", constraints: [] }, alice);
    const web = await segments.create({ name: "web-only", project: "web", constraints: [] }, alice);
    await segments.assertUsableInStrategy([global.id, web.id], "web");
    await expect(segments.assertUsableInStrategy([global.id, web.id], "default")).rejects.toMatchObject({
      name: "ValidationError",
      message: expect.stringMatching(/^Invalid segments\.1: segment 2 belongs to project web/),
    });
    await expect(segments.assertUsableInStrategy([global.id, 42], "web", "body.segments")).rejects.toMatchObject({
      message: expect.stringMatching(/^Invalid body\.segments\.1: no segment exists/),
    });
    await expect(segments.assertUsableInStrategy([1, 2, 3], "web")).rejects.toMatchObject({
      message: expect.stringMatching(/at most 2 segments, got 3/),
    });
    expect((await segments.listForProject("default")).map((s) => s.name)).toEqual(["global"]);
    expect((await segments.listForProject("web")).map((s) => s.name)).toEqual(["global", "web-only"]);
  });
});
