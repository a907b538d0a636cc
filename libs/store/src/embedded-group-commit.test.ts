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

  it("after a failed fsync refuses every later operation, and a restart holds every acknowledged write", async () => {
    const dir = await tempDir();
    const prototype = await fileHandlePrototype(dir);
    const engine = await createEmbeddedEngine({ dir });
    const flags = engine.collection<Flag>("flags");
    await flags.insertOne({ _id: "kept", n: 1 });
    const realDatasync = prototype.datasync;
    vi.spyOn(prototype, "datasync").mockImplementationOnce(() => Promise.reject(Object.assign(new Error("EIO"), { code: "EIO" })));
    const results = await Promise.allSettled([flags.insertOne({ _id: "lost-1", n: 2 }), flags.insertOne({ _id: "lost-2", n: 3 })]);
    expect(results.map((result) => result.status)).toEqual(["rejected", "rejected"]);
    vi.spyOn(prototype, "datasync").mockImplementation(realDatasync);
    await expect(flags.insertOne({ _id: "after", n: 4 })).rejects.toBeInstanceOf(NotReady);
    await expect(flags.findOne({ _id: "kept" })).rejects.toBeInstanceOf(NotReady);
    await expect(engine.ping()).rejects.toBeInstanceOf(NotReady);
    await engine.close();
    const reopened = await createEmbeddedEngine({ dir });
    const ids = (await reopened.collection<Flag>("flags").find({})).map((flag) => flag._id);
    expect(ids).toContain("kept");
    expect(ids).not.toContain("after");
    await reopened.close();
  });
});
