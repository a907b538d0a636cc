import { describe, expect, it, vi } from "vitest";
import { createMemoryBus } from "@vexil/bus";
import { cacheKeys } from "@vexil/contracts";
import { createLogger, type Logger } from "@vexil/logger";
import { toClientFeature } from "./client-features.js";
import { SnapshotPublisher } from "./snapshot-publisher.js";
import { committedAt, flag, segment, setup, strategy } from "./snapshot-publisher.fixture.js";

describe("toClientFeature", () => {
  it("serves enabled strategies in sort order, variants as stored, and dependencies, in Unleash's client shape", () => {
    const doc = flag("child", {
      impressionData: true,
      dependencies: [
        { feature: "parent", enabled: true, variants: ["blue"] },
        { feature: "other", enabled: false, variants: [] },
      ],
      environments: {
        development: {
          enabled: true,
          strategies: [
            strategy({ id: "b", sortOrder: 2, title: "second", segments: [3] }),
            strategy({ id: "off", disabled: true, sortOrder: 0 }),
            strategy({
              id: "a",
              sortOrder: 1,
              name: "flexibleRollout",
              parameters: { rollout: "50" },
              constraints: [{ contextName: "age", operator: "NUM_GT", value: "18" }],
            }),
          ],
          // Weights that do not sum to 1000 and are not sorted: kept exactly.
          variants: [
            { name: "z", weight: 700, weightType: "variable", stickiness: "default" },
            { name: "a", weight: 33, weightType: "fix", stickiness: "default" },
          ],
          lastSeenAt: null,
        },
      },
    });
    const client = toClientFeature(doc, "development");
    expect(client.strategies.map((s) => s.id)).toEqual(["a", "b"]);
    expect(client.strategies[1]).toMatchObject({ segments: [3] });
    expect(client.strategies[0]).not.toHaveProperty("segments");
    // Unleash serves neither a strategy's title nor its sortOrder to SDKs (the list is in order).
    for (const served of client.strategies) expect(Object.keys(served)).not.toContain("title");
    for (const served of client.strategies) expect(Object.keys(served)).not.toContain("sortOrder");
    // Every constraint carries a values list, empty for single-value operators, as Unleash serves them.
    expect(client.strategies[0]!.constraints).toEqual([{ contextName: "age", operator: "NUM_GT", value: "18", values: [] }]);
    expect(client.variants.map((v) => [v.name, v.weight])).toEqual([
      ["z", 700],
      ["a", 33],
    ]);
    expect(client.dependencies).toEqual([
      { feature: "parent", enabled: true, variants: ["blue"] },
      { feature: "other", enabled: false },
    ]);
    expect(client).toMatchObject({ name: "child", enabled: true, impressionData: true, project: "default" });
  });

  it("serves a flag without an entry for the environment as disabled and empty", () => {
    const client = toClientFeature(flag("plain"), "production");
    expect(client).toMatchObject({ enabled: false, strategies: [], variants: [] });
    expect(client).not.toHaveProperty("dependencies");
  });
});

describe("SnapshotPublisher", () => {
  it("publishes every environment at start, sorted by name, with the newest event as revision", async () => {
    const { model, publisher, read, features, announced, cache } = await setup();
    model.flags.set("b", flag("b"));
    model.flags.set("a", flag("a"));
    model.flags.set("gone", flag("gone", { archived: true }));
    model.segments.set(1, segment(1, ["u1"]));
    model.event("feature-created", "a");
    await publisher.start();
    expect((await features("development")).map((f) => f.name)).toEqual(["a", "b"]);
    expect((await read("development")).revision).toBe(1);
    expect((await read("development")).segments).toEqual([
      { id: 1, name: "segment-1", constraints: [{ contextName: "userId", operator: "IN", values: ["u1"] }] },
    ]);
    expect((await features("production")).map((f) => f.enabled)).toEqual([false, false]);
    expect(await cache.getJson(cacheKeys.snapshotEnvironments)).toEqual(["development", "production"]);
    expect(announced).toEqual([
      { environment: "development", revision: 1 },
      { environment: "production", revision: 1 },
    ]);
    await publisher.stop();
  });

  it("re-reads only the flags named in the events and republishes only environments that changed", async () => {
    const { model, publisher, read, features, announced } = await setup();
    model.flags.set("a", flag("a"));
    await publisher.start();
    announced.length = 0;
    const listsBefore = model.reads.listFeatures;

    const updated = flag("a");
    updated.environments.development!.enabled = false;
    model.flags.set("a", updated);
    publisher.notify([model.event("feature-environment-disabled", "a")]);
    await publisher.idle();

    expect(model.reads.listFeatures).toBe(listsBefore);
    expect((await features("development"))[0].enabled).toBe(false);
    expect((await read("development")).revision).toBe(1);
    expect(announced).toEqual([
      { environment: "development", revision: 1, previousRevision: 0, changedFeatures: ["a"], segmentsChanged: false, committedAt },
    ]);
    await publisher.stop();
  });

  it("coalesces a burst of commits into few rebuilds", async () => {
    const { model, publisher, features, announced } = await setup();
    await publisher.start();
    announced.length = 0;
    for (let i = 0; i < 500; i++) {
      const name = `flag-${String(i).padStart(3, "0")}`;
      model.flags.set(name, flag(name));
      publisher.notify([model.event("feature-created", name)]);
    }
    await publisher.idle();
    expect(await features("development")).toHaveLength(500);
    // The first commit starts a rebuild; the other 499 land in the next one.
    expect(announced.length).toBeLessThanOrEqual(4);
    expect(model.reads.findFeature).toBe(500);
    await publisher.stop();
  });

  it("drops archived and deleted flags and their entries", async () => {
    const { model, publisher, features, cache } = await setup();
    model.flags.set("a", flag("a"));
    model.flags.set("b", flag("b"));
    await publisher.start();
    model.flags.set("a", flag("a", { archived: true }));
    model.flags.delete("b");
    publisher.notify([model.event("feature-archived", "a"), model.event("feature-deleted", "b")]);
    await publisher.idle();
    expect(await features("development")).toEqual([]);
    expect(await cache.get(cacheKeys.snapshotFeature("development", "a"))).toBeNull();
    expect(await cache.get(cacheKeys.snapshotFeature("development", "b"))).toBeNull();
    await publisher.stop();
  });

  it("rewrites only the entries of changed flags and names them with the revision they follow", async () => {
    const { model, publisher, cache, announced } = await setup();
    model.flags.set("a", flag("a"));
    model.flags.set("b", flag("b"));
    await publisher.start();
    announced.length = 0;
    const set = vi.spyOn(cache, "set");
    model.flags.set("c", flag("c"));
    publisher.notify([model.event("feature-created", "c")]);
    await publisher.idle();
    // The new flag's entries, the names it joins and the indexes; not the other flags' entries, nor the segments.
    expect(set.mock.calls.map(([key]) => key).sort()).toEqual([
      cacheKeys.snapshotIndex("development"),
      cacheKeys.snapshotFeature("development", "c"),
      cacheKeys.snapshotNames("development"),
      cacheKeys.snapshotIndex("production"),
      cacheKeys.snapshotFeature("production", "c"),
      cacheKeys.snapshotNames("production"),
    ]);
    expect(announced).toEqual([
      { environment: "development", revision: 1, previousRevision: 0, changedFeatures: ["c"], segmentsChanged: false, committedAt },
      { environment: "production", revision: 1, previousRevision: 0, changedFeatures: ["c"], segmentsChanged: false, committedAt },
    ]);
    expect(await cache.getJson(cacheKeys.snapshotIndex("development"))).toEqual({
      environment: "development",
      revision: 1,
      namesRevision: 1,
    });
    expect(await cache.getJson(cacheKeys.snapshotNames("development"))).toEqual({ revision: 1, featureNames: ["a", "b", "c"] });
    await publisher.stop();
  });

  it("removes the entries of flags gone while it was not running", async () => {
    const { model, publisher, cache, read } = await setup();
    model.flags.set("a", flag("a"));
    model.flags.set("b", flag("b"));
    await publisher.start();
    await publisher.stop();

    model.flags.delete("b");
    const restarted = new SnapshotPublisher({
      sources: model.sources,
      cache,
      bus: createMemoryBus(),
      logger: createLogger({ service: "test", level: "silent" }),
    });
    await restarted.start();
    expect((await read("development")).features.map((f) => f.name)).toEqual(["a"]);
    expect(await cache.get(cacheKeys.snapshotFeature("development", "b"))).toBeNull();
    await restarted.stop();
  });

  it("republishes every environment when a segment changes, and nothing for unrelated events", async () => {
    const { model, publisher, read, announced } = await setup();
    await publisher.start();
    announced.length = 0;
    publisher.notify([model.event("api-token-created")]);
    await publisher.idle();
    expect(announced).toEqual([]);

    model.segments.set(7, segment(7, ["x"]));
    publisher.notify([model.event("segment-created")]);
    await publisher.idle();
    expect(announced).toEqual([
      { environment: "development", revision: 2, previousRevision: 0, changedFeatures: [], segmentsChanged: true, committedAt },
      { environment: "production", revision: 2, previousRevision: 0, changedFeatures: [], segmentsChanged: true, committedAt },
    ]);
    expect((await read("production")).segments.map((s) => s.id)).toEqual([7]);
    await publisher.stop();
  });

  it("serves flags only in their project's environments, reloading when those change", async () => {
    const { model, publisher, features } = await setup();
    model.flags.set("other", flag("other", { project: "elsewhere" }));
    await publisher.start();
    expect(await features("development")).toEqual([]);

    const original = model.sources.listProjectEnvironments;
    model.sources.listProjectEnvironments = async () => [...(await original()), { project: "elsewhere", environment: "development" }];
    publisher.notify([model.event("project-environment-added")]);
    await publisher.idle();
    expect((await features("development")).map((f) => f.name)).toEqual(["other"]);
    await publisher.stop();
  });

  describe("revisions under interleaved commits", () => {
    type Announcement = { environment: string; revision: number; changedFeatures?: string[] };
    /** What a reader does with the announcements: it drops one at or below the revision it holds. */
    const dropped = (announced: unknown[]) => {
      const held = new Map<string, number>();
      return (announced as Announcement[]).filter((notice) => {
        if ((held.get(notice.environment) ?? -1) >= notice.revision) return true;
        held.set(notice.environment, notice.revision);
        return false;
      });
    };
    const disabled = (name: string) => {
      const doc = flag(name);
      doc.environments.development!.enabled = false;
      return doc;
    };

    it("never announces new content under a revision already announced when notices arrive out of commit order", async () => {
      const { model, publisher, read, features, announced } = await setup();
      model.flags.set("a", flag("a"));
      model.flags.set("b", flag("b"));
      await publisher.start();
      announced.length = 0;
      // A commits event 1 (flag a), then B commits event 2 (flag b); B's notice comes first.
      model.flags.set("a", disabled("a"));
      const committedA = model.event("feature-environment-disabled", "a");
      model.flags.set("b", disabled("b"));
      const committedB = model.event("feature-environment-disabled", "b");
      publisher.notify([committedB]);
      await publisher.idle();
      publisher.notify([committedA]);
      await publisher.idle();

      expect(dropped(announced)).toEqual([]);
      expect((await features("development")).map((f) => [f.name, f.enabled])).toEqual([
        ["a", false],
        ["b", false],
      ]);
      expect((await read("development")).revision).toBe(2);
      await publisher.stop();
    });

    it("picks up a commit whose notice never arrives (another instance) with the next notice after it", async () => {
      const { model, publisher, features, announced } = await setup();
      await publisher.start();
      announced.length = 0;
      model.flags.set("elsewhere", flag("elsewhere"));
      model.event("feature-created", "elsewhere");
      model.flags.set("here", flag("here"));
      publisher.notify([model.event("feature-created", "here")]);
      await publisher.idle();
      expect((await features("development")).map((f) => f.name)).toEqual(["elsewhere", "here"]);
      expect(dropped(announced)).toEqual([]);
      await publisher.stop();
    });

    it("reads the log only when a notice is missing", async () => {
      const { model, publisher } = await setup();
      await publisher.start();
      const between = vi.spyOn(model.sources, "eventsBetween");
      for (const name of ["a", "b", "c"]) {
        model.flags.set(name, flag(name));
        publisher.notify([model.event("feature-created", name)]);
        await publisher.idle();
      }
      expect(between).not.toHaveBeenCalled();
      await publisher.stop();
    });
  });

  it("serves the flags of a project created while it runs", async () => {
    const { model, publisher, features } = await setup();
    await publisher.start();
    const original = model.sources.listProjectEnvironments;
    model.sources.listProjectEnvironments = async () => [...(await original()), { project: "created-later", environment: "development" }];
    publisher.notify([model.event("project-created")]);
    model.flags.set("later", flag("later", { project: "created-later" }));
    publisher.notify([model.event("feature-created", "later"), model.event("feature-environment-enabled", "later")]);
    await publisher.idle();
    expect((await features("development")).map((f) => f.name)).toEqual(["later"]);
    expect(await features("production")).toEqual([]);
    await publisher.stop();
  });

  it("retries a failed rebuild with a full reload", async () => {
    const { model, publisher, features } = await setup();
    await publisher.start();
    const find = vi.spyOn(model.sources, "findFeature").mockRejectedValueOnce(new Error("store down"));
    model.flags.set("late", flag("late"));
    publisher.notify([model.event("feature-created", "late")]);
    await publisher.idle();
    expect(find).toHaveBeenCalledTimes(1);
    await vi.waitFor(async () => expect((await features("development")).map((f) => f.name)).toEqual(["late"]));
    await publisher.stop();
  });

  describe("while the cache keeps failing (a Redis outage)", () => {
    /** A logger that records what the publisher says. */
    const recordingLogger = () => {
      const lines: Array<{ level: string; message: string; details: Record<string, unknown> }> = [];
      const at =
        (level: string) =>
        (details: Record<string, unknown>, message: string): void =>
          void lines.push({ level, message, details });
      return { lines, logger: { error: at("error"), warn: at("warn"), info: at("info"), debug: at("debug") } as unknown as Logger };
    };

    it("retries on one timer, later after each failure up to the cap, however many commits arrive, and logs the outage once", async () => {
      const { lines, logger } = recordingLogger();
      const { model, cache, publisher, features } = await setup({ retryDelayMs: 20, maxRetryDelayMs: 80, logger });
      await publisher.start();
      const down = vi.spyOn(cache, "set").mockRejectedValue(new Error("Redis unreachable"));
      const reloads = vi.spyOn(model.sources, "listFeatures");
      const started = Date.now();
      // A commit every 5 ms for 400 ms: each one used to start a full reload at once.
      for (let i = 0; i < 80; i++) {
        model.flags.set(`during-${i}`, flag(`during-${i}`));
        publisher.notify([model.event("feature-created", `during-${i}`)]);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const elapsed = Date.now() - started;
      // The first attempt, then at most one per delay (20, 40, 80, 80, ... ms) that fits in the time.
      const delay = (failures: number) => Math.min(20 * 2 ** failures, 80);
      let fits = 0;
      for (let waited = delay(0); waited <= elapsed; waited += delay(fits)) fits++;
      expect(reloads.mock.calls.length).toBeGreaterThanOrEqual(1);
      expect(reloads.mock.calls.length).toBeLessThanOrEqual(1 + fits);
      expect(lines.filter((line) => line.level === "error")).toHaveLength(1);

      down.mockRestore();
      await vi.waitFor(async () => expect((await features("development")).map((f) => f.name)).toHaveLength(80), { timeout: 2000 });
      const recovered = lines.filter((line) => line.message.startsWith("snapshots published again"));
      expect(recovered).toHaveLength(1);
      // The first failed attempt re-read only the flag it was told of; each later one reloads in full, the last succeeding.
      expect(recovered[0]!.details.failures).toBe(reloads.mock.calls.length);
      await publisher.stop();
    });

    it("republishes at once when asked (the cache is back), without waiting out the retry delay", async () => {
      const { model, cache, publisher, features } = await setup({ retryDelayMs: 60_000 });
      await publisher.start();
      const down = vi.spyOn(cache, "set").mockRejectedValue(new Error("Redis unreachable"));
      model.flags.set("late", flag("late"));
      publisher.notify([model.event("feature-created", "late")]);
      await publisher.idle();
      await expect(publisher.republish()).rejects.toThrow(/could not be written/);
      down.mockRestore();
      await expect(publisher.republish()).resolves.toEqual(["development", "production"]);
      expect((await features("development")).map((f) => f.name)).toEqual(["late"]);
      await publisher.stop();
    });
  });
});
