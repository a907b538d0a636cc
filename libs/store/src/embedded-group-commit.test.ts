import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { NotReady } from "@vexil/errors";
import { createEmbeddedEngine } from "./index.js";

interface Flag {
  _id: string;
  n: number;
}

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "vexil-store-group-"));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** The prototype every `FileHandle` shares, to count or fail its fsyncs. */
async function fileHandlePrototype(dir: string) {
  const handle = await open(join(dir, "probe"), "w");
  await handle.close();
  return Object.getPrototypeOf(handle) as { datasync(): Promise<void> };
}

describe("embedded engine group commit", () => {
  it("makes writes that arrive together durable with fewer fsyncs than writes, each acknowledged only once durable", async () => {
    const dir = await tempDir();
    const datasync = vi.spyOn(await fileHandlePrototype(dir), "datasync");
    const engine = await createEmbeddedEngine({ dir });
    const flags = engine.collection<Flag>("flags");
    await Promise.all([
      ...Array.from({ length: 50 }, (_, i) => flags.insertOne({ _id: `f${i}`, n: i })),
      ...Array.from({ length: 20 }, (_, i) =>
        engine.withTransaction(async (session) => {
          await flags.insertOne({ _id: `t${i}`, n: i }, { session });
        }),
      ),
    ]);
    expect(datasync.mock.calls.length).toBeGreaterThan(0);
    expect(datasync.mock.calls.length).toBeLessThan(70);
    await engine.close();
    const reopened = await createEmbeddedEngine({ dir });
    expect(await reopened.collection<Flag>("flags").countDocuments({})).toBe(70);
    await reopened.close();
  });

  it("after a failed fsync refuses the writes it held and every write until they are written again, serving reads meanwhile", async () => {
    const dir = await tempDir();
    const prototype = await fileHandlePrototype(dir);
    const log = { error: vi.fn(), warn: vi.fn(), info: vi.fn() };
    const engine = await createEmbeddedEngine({ dir, log });
    const flags = engine.collection<Flag>("flags");
    await flags.insertOne({ _id: "kept", n: 1 });
    vi.spyOn(prototype, "datasync").mockImplementationOnce(() => Promise.reject(Object.assign(new Error("EIO"), { code: "EIO" })));
    const results = await Promise.allSettled([flags.insertOne({ _id: "refused-1", n: 2 }), flags.insertOne({ _id: "refused-2", n: 3 })]);
    expect(results.map((result) => result.status)).toEqual(["rejected", "rejected"]);
    for (const result of results) expect((result as PromiseRejectedResult).reason).toBeInstanceOf(NotReady);
    expect(engine.writeFailure()).toMatch(/EIO/);
    expect(log.error).toHaveBeenCalledWith(
      expect.objectContaining({ records: 2, offset: expect.any(Number) }),
      expect.stringMatching(/journal write failed/),
    );

    // Refused before it changes anything, while reads go on.
    await expect(flags.insertOne({ _id: "during", n: 4 })).rejects.toBeInstanceOf(NotReady);
    expect(await flags.findOne({ _id: "kept" })).toEqual({ _id: "kept", n: 1 });
    await expect(engine.ping()).resolves.toBeUndefined();

    // The next attempt finds the disk working: the refused records are written, and writes are taken.
    await vi.waitFor(() => expect(engine.writeFailure()).toBeUndefined(), { timeout: 5000, interval: 50 });
    expect(log.info).toHaveBeenCalledWith(expect.objectContaining({ records: 2 }), expect.stringMatching(/written again/));
    await flags.insertOne({ _id: "after", n: 5 });
    await engine.close();

    const reopened = await createEmbeddedEngine({ dir });
    const ids = (await reopened.collection<Flag>("flags").find({})).map((flag) => flag._id);
    expect(ids.sort()).toEqual(["after", "kept", "refused-1", "refused-2"]);
    await reopened.close();
  });
});
