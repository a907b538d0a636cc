import { describe, expect, it, vi } from "vitest";
import { cacheKeys } from "@vexil/contracts";
import { committedAt, flag, segment, setup } from "./snapshot-publisher.fixture.js";

/**
 * The names entry: the one that grows with the number of flags, so it is written only when flags
 * come or go, and the index says which names it goes with.
 */
describe("SnapshotPublisher names", () => {
  it("keeps the names in order as flags come and go one by one, last or in between", async () => {
    const { model, publisher, read } = await setup();
    for (const name of ["b", "d"]) model.flags.set(name, flag(name));
    await publisher.start();
    const steps: Array<[string, "add" | "remove"]> = [
      ["e", "add"],
      ["f", "add"],
      ["a", "add"],
      ["c", "add"],
      ["d", "remove"],
      ["g", "add"],
      ["g", "remove"],
      ["h", "add"],
    ];
    for (const [name, step] of steps) {
      if (step === "add") model.flags.set(name, flag(name));
      else model.flags.delete(name);
      publisher.notify([model.event(step === "add" ? "feature-created" : "feature-deleted", name)]);
      await publisher.idle();
      const snapshot = await read("development");
      expect(snapshot.featureNames).toEqual([...model.flags.keys()].sort());
      // Every step adds or removes a name, so each writes the names with its revision.
      expect(snapshot.namesRevision).toBe(snapshot.revision);
    }
    await publisher.stop();
  });

  it("leaves the names alone when flags change but none comes or goes, whatever their number", async () => {
    const { model, publisher, cache, read, announced } = await setup();
    for (let i = 0; i < 100; i++) model.flags.set(`flag-${i}`, flag(`flag-${i}`));
    await publisher.start();
    const namesBefore = await cache.get(cacheKeys.snapshotNames("development"));
    announced.length = 0;
    const set = vi.spyOn(cache, "set");
    const disabled = flag("flag-7");
    disabled.environments.development!.enabled = false;
    model.flags.set("flag-7", disabled);
    publisher.notify([model.event("feature-environment-disabled", "flag-7")]);
    await publisher.idle();

    // Production serves flag-7 disabled either way: nothing there changed.
    expect(set.mock.calls.map(([key]) => key).sort()).toEqual([
      cacheKeys.snapshotIndex("development"),
      cacheKeys.snapshotFeature("development", "flag-7"),
    ]);
    expect(set.mock.calls.every(([, value]) => value.length < 1000)).toBe(true);
    expect(await cache.get(cacheKeys.snapshotNames("development"))).toBe(namesBefore);
    // The index moves on and still names the revision the names were written at.
    expect(await cache.getJson(cacheKeys.snapshotIndex("development"))).toEqual({
      environment: "development",
      revision: 1,
      namesRevision: 0,
    });
    const snapshot = await read("development");
    expect(snapshot.features).toHaveLength(100);
    expect(snapshot.features.find((f) => f.name === "flag-7").enabled).toBe(false);
    expect(announced).toEqual([
      { environment: "development", revision: 1, previousRevision: 0, changedFeatures: ["flag-7"], segmentsChanged: false, committedAt },
    ]);

    // A segment change alone rewrites neither.
    set.mockClear();
    model.segments.set(3, segment(3, ["u"]));
    publisher.notify([model.event("segment-created")]);
    await publisher.idle();
    expect(set.mock.calls.map(([key]) => key)).not.toContain(cacheKeys.snapshotNames("development"));
    expect((await read("development")).namesRevision).toBe(0);

    // The next flag that comes writes them again, at its revision.
    set.mockClear();
    model.flags.set("added", flag("added"));
    publisher.notify([model.event("feature-created", "added")]);
    await publisher.idle();
    expect(set.mock.calls.map(([key]) => key)).toContain(cacheKeys.snapshotNames("development"));
    expect(await cache.getJson(cacheKeys.snapshotNames("development"))).toEqual({
      revision: 3,
      featureNames: [...model.flags.keys()].sort(),
    });
    expect((await read("development")).namesRevision).toBe(3);
    await publisher.stop();
  });

  it("writes the names again when a flag goes, with the revision of its removal", async () => {
    const { model, publisher, cache, read } = await setup();
    for (const name of ["a", "b", "c"]) model.flags.set(name, flag(name));
    await publisher.start();
    const set = vi.spyOn(cache, "set");
    model.flags.delete("b");
    publisher.notify([model.event("feature-deleted", "b")]);
    await publisher.idle();
    expect(set.mock.calls.map(([key]) => key)).toContain(cacheKeys.snapshotNames("development"));
    expect(await cache.getJson(cacheKeys.snapshotNames("development"))).toEqual({ revision: 1, featureNames: ["a", "c"] });
    expect((await read("development")).features.map((f) => f.name)).toEqual(["a", "c"]);
    await publisher.stop();
  });

  it("leaves the index on the names it had when writing the new ones fails, then rewrites both", async () => {
    const { model, publisher, cache, read } = await setup();
    model.flags.set("a", flag("a"));
    await publisher.start();
    const set = cache.set.bind(cache);
    let failures = 0;
    vi.spyOn(cache, "set").mockImplementation(async (key, value, options) => {
      if (key === cacheKeys.snapshotNames("development") && failures++ === 0) throw new Error("cache down");
      return set(key, value, options);
    });
    model.flags.set("b", flag("b"));
    publisher.notify([model.event("feature-created", "b")]);
    await publisher.idle();
    // The failed rebuild wrote b's entry but no index naming names that are not there.
    expect(await cache.getJson(cacheKeys.snapshotIndex("development"))).toEqual({
      environment: "development",
      revision: 0,
      namesRevision: 0,
    });
    expect((await read("development")).featureNames).toEqual(["a"]);
    // The retry writes everything again, names included.
    await vi.waitFor(async () => expect((await read("development")).featureNames).toEqual(["a", "b"]));
    expect(await cache.getJson(cacheKeys.snapshotIndex("development"))).toEqual({
      environment: "development",
      revision: 1,
      namesRevision: 1,
    });
    await publisher.stop();
  });

  it("removes the entries of flags gone that a cache written before the names had their own entry lists in its index", async () => {
    const { model, publisher, cache, read } = await setup();
    model.flags.set("a", flag("a"));
    for (const name of ["a", "b"]) await cache.set(cacheKeys.snapshotFeature("development", name), JSON.stringify({ name }));
    await cache.setJson(cacheKeys.snapshotIndex("development"), { environment: "development", revision: 0, featureNames: ["a", "b"] });
    await publisher.start();
    expect(await cache.get(cacheKeys.snapshotFeature("development", "b"))).toBeNull();
    expect((await read("development")).features.map((f) => f.name)).toEqual(["a"]);
    await publisher.stop();
  });

  it("publishes over names it cannot read, whatever they hold", async () => {
    const { model, publisher, cache, read } = await setup();
    model.flags.set("a", flag("a"));
    await cache.set(cacheKeys.snapshotNames("development"), "{not json");
    await cache.setJson(cacheKeys.snapshotNames("production"), { revision: "seven", featureNames: "a" });
    await publisher.start();
    expect((await read("development")).featureNames).toEqual(["a"]);
    expect((await read("production")).featureNames).toEqual(["a"]);
    await publisher.stop();
  });
});
