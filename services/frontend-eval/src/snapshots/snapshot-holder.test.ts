import { afterEach, describe, expect, it, vi } from "vitest";
import { createMemoryBus, type Bus } from "@vexil/bus";
import { createMemoryCache } from "@vexil/cache";
import { cacheKeys, topics, type SnapshotNames } from "@vexil/contracts";
import { createLogger } from "@vexil/logger";
import type { EnvironmentSnapshot } from "./environment-snapshot.js";
import { SnapshotHolder } from "./snapshot-holder.js";
import { clientFeature } from "../client-feature.fixture.js";
import { writeSnapshot } from "./snapshot-cache.fixture.js";

const environment = "development";

const flags = (...names: string[]) => names.map((name) => clientFeature(name));

async function setup({ compactAfterMs }: { compactAfterMs?: number } = {}) {
  const cache = createMemoryCache();
  const bus = createMemoryBus();
  await cache.setJson(cacheKeys.snapshotEnvironments, [environment]);
  const holder = new SnapshotHolder({
    cache,
    bus,
    logger: createLogger({ service: "test", level: "silent" }),
    retryDelayMs: 10,
    compactAfterMs,
  });
  /** Every snapshot the holder put in force. */
  const swaps: EnvironmentSnapshot[] = [];
  holder.onSwap((snapshot) => void swaps.push(snapshot));
  const names = (snapshot: EnvironmentSnapshot) => [...snapshot.features.keys()];
  return { cache, bus, holder, swaps, names };
}

/** Counts the holder's requests asking the admin to write a snapshot again. */
function askedToRepublish(bus: Bus): () => number {
  const requests = vi.spyOn(bus, "request");
  return () => requests.mock.calls.filter(([topic]) => topic === topics.snapshotRepublish).length;
}

let stopHolder: (() => void) | undefined;
afterEach(() => {
  stopHolder?.();
  stopHolder = undefined;
  vi.restoreAllMocks();
});

describe("SnapshotHolder", () => {
  it("loads the flags of the names the index goes with, written at an earlier revision than the index", async () => {
    const { cache, holder, swaps, names } = await setup();
    stopHolder = () => holder.stop();
    // The flags changed at revisions 4 and 5 without any coming or going since 3.
    await writeSnapshot(cache, environment, { revision: 5, namesRevision: 3, features: flags("a", "b") });
    await holder.start();
    expect(holder.get(environment).revision).toBe(5);
    expect(names(holder.get(environment))).toEqual(["a", "b"]);
    expect(swaps).toHaveLength(1);
  });

  it.each([
    ["older", 4],
    ["newer", 6],
  ])("builds nothing from names %s than the index goes with, and asks the admin to write them again", async (_, namesRevision) => {
    const { cache, bus, holder, swaps, names } = await setup();
    stopHolder = () => holder.stop();
    // b's entry is there, but names of another revision leave it out: a mix would serve a without b.
    await writeSnapshot(cache, environment, { revision: 5, features: flags("a", "b"), names: ["a"] });
    await cache.setJson(cacheKeys.snapshotNames(environment), { revision: namesRevision, featureNames: ["a"] } satisfies SnapshotNames);
    const namesRead = vi.spyOn(cache, "getJson");
    let republished = 0;
    bus.reply(topics.snapshotRepublish, async () => {
      republished++;
      await writeSnapshot(cache, environment, { revision: 7, features: flags("a", "b") });
      return { environments: [environment] };
    });

    await holder.start();
    await vi.waitFor(() => expect(holder.has(environment)).toBe(true));
    // Read again a few times before concluding the cache lost them, as for missing entries.
    expect(namesRead.mock.calls.filter(([key]) => key === cacheKeys.snapshotNames(environment)).length).toBeGreaterThanOrEqual(3);
    expect(republished).toBe(1);
    expect(swaps.map((snapshot) => [snapshot.revision, names(snapshot)])).toEqual([[7, ["a", "b"]]]);
  });

  it("serves nothing while the names never match and the admin does not answer", async () => {
    const { cache, bus, holder, swaps } = await setup();
    stopHolder = () => holder.stop();
    await writeSnapshot(cache, environment, { revision: 5, features: flags("a") });
    await cache.setJson(cacheKeys.snapshotNames(environment), { revision: 2, featureNames: ["a"] } satisfies SnapshotNames);
    const republishAsked = askedToRepublish(bus);
    await holder.start();
    // The admin's republish request finds no responder; the holder keeps trying and serves nothing.
    await vi.waitFor(() => expect(republishAsked()).toBeGreaterThanOrEqual(2));
    expect(holder.ready).toBe(false);
    expect(() => holder.get(environment)).toThrow(/No flags loaded/);
    expect(swaps).toEqual([]);
  });

  it("keeps the snapshot it holds when a reload finds names of another revision", async () => {
    const { cache, bus, holder, swaps, names } = await setup();
    stopHolder = () => holder.stop();
    await writeSnapshot(cache, environment, { revision: 5, features: flags("a", "b") });
    await holder.start();
    // A full notice, while the cache pairs an index with names that are not its own.
    await writeSnapshot(cache, environment, { revision: 6, features: flags("a", "b", "c") });
    await cache.setJson(cacheKeys.snapshotNames(environment), { revision: 9, featureNames: ["c"] } satisfies SnapshotNames);
    const republishAsked = askedToRepublish(bus);
    bus.publish(topics.snapshotUpdated.of(environment), { environment, revision: 6 });
    // The reload is over once it gave up on the cache and asked the admin to write it again.
    await vi.waitFor(() => expect(republishAsked()).toBeGreaterThanOrEqual(1));
    expect(holder.get(environment).revision).toBe(5);
    expect(names(holder.get(environment))).toEqual(["a", "b"]);
    expect(swaps).toHaveLength(1);
  });

  it("reads again when a writer moved the names on between its reads of the index and of the names", async () => {
    const { cache, bus, holder, swaps, names } = await setup();
    stopHolder = () => holder.stop();
    await writeSnapshot(cache, environment, { revision: 5, features: flags("a", "b") });
    const getJson = cache.getJson.bind(cache);
    let raced = false;
    vi.spyOn(cache, "getJson").mockImplementation(async (key) => {
      if (key === cacheKeys.snapshotNames(environment) && !raced) {
        raced = true;
        // The admin adds c after this reader has read the index of revision 5.
        await writeSnapshot(cache, environment, { revision: 6, features: flags("a", "b", "c") });
      }
      return getJson(key);
    });
    const republish = vi.fn(() => ({ environments: [environment] }));
    bus.reply(topics.snapshotRepublish, republish);

    await holder.start();
    expect(raced).toBe(true);
    expect(republish).not.toHaveBeenCalled();
    // Not revision 5 with c's name, nor 6 without it: the next read finds index and names of 6.
    expect(swaps.map((snapshot) => [snapshot.revision, names(snapshot)])).toEqual([[6, ["a", "b", "c"]]]);
  });

  it("treats an index without its names as an incomplete snapshot", async () => {
    const { cache, bus, holder, swaps, names } = await setup();
    stopHolder = () => holder.stop();
    await writeSnapshot(cache, environment, { revision: 5, features: flags("a") });
    await cache.del(cacheKeys.snapshotNames(environment));
    bus.reply(topics.snapshotRepublish, async () => {
      await writeSnapshot(cache, environment, { revision: 5, features: flags("a") });
      return { environments: [environment] };
    });
    await holder.start();
    await vi.waitFor(() => expect(holder.has(environment)).toBe(true));
    expect(swaps.map((snapshot) => [snapshot.revision, names(snapshot)])).toEqual([[5, ["a"]]]);
  });

  it("reads neither index nor names for an announcement that follows the revision held", async () => {
    const { cache, bus, holder, names } = await setup();
    stopHolder = () => holder.stop();
    await writeSnapshot(cache, environment, { revision: 5, features: flags("a", "b") });
    await holder.start();
    const reads = vi.spyOn(cache, "getJson");
    await cache.set(cacheKeys.snapshotFeature(environment, "c"), JSON.stringify(clientFeature("c")));
    bus.publish(topics.snapshotUpdated.of(environment), {
      environment,
      revision: 6,
      previousRevision: 5,
      changedFeatures: ["c"],
      segmentsChanged: false,
    });
    await vi.waitFor(() => expect(holder.get(environment).revision).toBe(6));
    expect(names(holder.get(environment))).toEqual(["a", "b", "c"]);
    expect(reads).not.toHaveBeenCalled();
  });

  it("builds a snapshot again whole once a tenth of its flags were patched in and changes pause, telling no listener", async () => {
    const { cache, bus, holder, swaps } = await setup({ compactAfterMs: 20 });
    stopHolder = () => holder.stop();
    const twenty = flags(...Array.from({ length: 20 }, (_, i) => `flag-${String(i).padStart(2, "0")}`));
    await writeSnapshot(cache, environment, { revision: 5, features: twenty });
    await holder.start();
    const change = async (revision: number, name: string) => {
      await cache.set(cacheKeys.snapshotFeature(environment, name), JSON.stringify({ ...clientFeature(name), enabled: false }));
      bus.publish(topics.snapshotUpdated.of(environment), {
        environment,
        revision,
        previousRevision: revision - 1,
        changedFeatures: [name],
        segmentsChanged: false,
      });
      await vi.waitFor(() => expect(swaps.at(-1)?.revision).toBe(revision));
      // The snapshot the change put in force (the holder may have built it again already).
      return swaps.at(-1)!;
    };

    // One flag in twenty: patched in, and kept as it is.
    const rebuilds = vi.spyOn(holder as unknown as { rebuild(environment: string): Promise<void> }, "rebuild");
    const once = await change(6, "flag-03");
    // Node runs timers of the same delay in the order they were set, so any rebuild the change
    // scheduled would have started before this one fires.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(rebuilds).not.toHaveBeenCalled();
    expect(holder.get(environment)).toBe(once);

    const twice = await change(7, "flag-11");
    const texts = [...twice.featureJson];
    await vi.waitFor(() => expect(holder.get(environment)).not.toBe(twice));
    const rebuilt = holder.get(environment);
    expect(rebuilt.revision).toBe(7);
    expect([...rebuilt.featureJson]).toEqual(texts);
    expect(rebuilt.features.get("flag-11")?.enabled).toBe(false);
    expect([...rebuilt.compiled.features.keys()]).toEqual([...twice.compiled.features.keys()]);
    expect(rebuilt.compiled.features.get("flag-03")).not.toBe(twice.compiled.features.get("flag-03"));
    expect(swaps.map((snapshot) => snapshot.revision)).toEqual([5, 6, 7]);
  });
});
