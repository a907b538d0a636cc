import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, rmdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { NotReady } from "@vexil/errors";
import { createEmbeddedEngine } from "./index.js";

const run = promisify(execFile);

interface Doc {
  _id: number;
  body: string;
}

/** A 1 MiB tmpfs of our own: a disk that really fills up. Mounting needs root (CAP_SYS_ADMIN). */
let mountPoint: string | undefined;
let skipReason = "";
beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), "vexil-full-disk-"));
  try {
    await run("mount", ["-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", dir]);
    mountPoint = dir;
  } catch (err) {
    skipReason = `cannot mount a tmpfs here (${(err as Error).message.split("\n")[0]})`;
    await rmdir(dir);
  }
});
afterAll(async () => {
  if (!mountPoint) return;
  await run("umount", [mountPoint]);
  await rmdir(mountPoint);
});

const body = "x".repeat(4000);

describe("embedded engine on a disk that fills up", () => {
  it("acknowledges only whole records, refuses writes while full, takes them again once space returns, and loses nothing acknowledged", async (context) => {
    if (!mountPoint) return context.skip(skipReason);
    const dir = join(mountPoint, "store");
    // Space to hand back later: the disk fills up around it first.
    const ballast = join(mountPoint, "ballast");
    await writeFile(ballast, Buffer.alloc(128 * 1024));
    const log = { error: vi.fn(), warn: vi.fn(), info: vi.fn() };
    // No snapshot while filling: what is tested is the journal's append.
    const engine = await createEmbeddedEngine({ dir, log, compactAfterBytes: 64 * 1024 * 1024 });
    const docs = engine.collection<Doc>("docs");

    const acknowledged: number[] = [];
    let refusal: unknown;
    for (let id = 1; id < 1000 && refusal === undefined; id++) {
      await docs.insertOne({ _id: id, body }).then(
        () => acknowledged.push(id),
        (err: unknown) => (refusal = err),
      );
    }
    expect(refusal).toBeInstanceOf(NotReady);
    expect(acknowledged.length).toBeGreaterThan(100);
    expect(engine.writeFailure()).toMatch(/ENOSPC/);
    expect(log.error).toHaveBeenCalledWith(
      expect.objectContaining({ offset: expect.any(Number), cutBytes: expect.any(Number), prefix: expect.stringContaining('"op":"put"') }),
      expect.stringMatching(/journal write failed/),
    );
    // The journal ends on a whole record: no torn line, no NUL padding.
    const journal = await readFile(join(dir, "journal.ejsonl"));
    expect(journal.at(-1)).toBe(0x0a);
    expect(journal.includes(0)).toBe(false);
    expect(journal.toString("utf8").split("\n").filter(Boolean)).toHaveLength(acknowledged.length);

    // Full: writes are refused before they change anything, reads go on.
    await expect(docs.insertOne({ _id: 5000, body })).rejects.toBeInstanceOf(NotReady);
    expect(await docs.countDocuments({ _id: { $in: acknowledged } })).toBe(acknowledged.length);

    // Space returns: the refused record is written within the retry delay (at most 5 s), then writes are taken.
    await rm(ballast);
    await vi.waitFor(() => expect(engine.writeFailure()).toBeUndefined(), { timeout: 8000, interval: 100 });
    await docs.insertOne({ _id: 6000, body: "after" });
    await engine.close();

    const reopened = await createEmbeddedEngine({ dir, log });
    const ids = new Set((await reopened.collection<Doc>("docs").find({}, { projection: { _id: 1 } })).map((doc) => doc._id));
    for (const id of acknowledged) expect(ids.has(id)).toBe(true);
    // The record refused when the disk filled stayed in memory and was written once space returned; the one refused meanwhile never was.
    expect(ids.has(acknowledged.length + 1)).toBe(true);
    expect(ids.has(6000)).toBe(true);
    expect(ids.has(5000)).toBe(false);
    await reopened.close();
    await rm(dir, { recursive: true });
  });

  it("opens a full store whose journal cannot be folded into a snapshot, and drops its torn tail with an error line", async (context) => {
    if (!mountPoint) return context.skip(skipReason);
    const dir = join(mountPoint, "reopen");
    const first = await createEmbeddedEngine({ dir, compactAfterBytes: 64 * 1024 * 1024 });
    const docs = first.collection<Doc>("docs");
    let id = 0;
    while (
      await docs.insertOne({ _id: ++id, body }).then(
        () => true,
        () => false,
      )
    );
    await first.close();
    const acknowledged = id - 1;
    // A write torn by a crash: it was never acknowledged.
    const journalPath = join(dir, "journal.ejsonl");
    const whole = await readFile(journalPath);
    await writeFile(journalPath, Buffer.concat([whole, Buffer.from('[{"op":"put","c":"docs","doc":{"_id":9999,"bo')]));

    const log = { error: vi.fn(), warn: vi.fn(), info: vi.fn() };
    const reopened = await createEmbeddedEngine({ dir, log });
    expect(log.error).toHaveBeenCalledWith(
      { file: journalPath, offset: whole.length, bytes: 45, prefix: '[{"op":"put","c":"docs","doc":{"_id":9999,"bo' },
      expect.stringMatching(/torn record/),
    );
    // The disk had no room for a snapshot of everything: logged, and the journal serves on.
    expect(log.error).toHaveBeenCalledWith(expect.objectContaining({ journalBytes: whole.length }), expect.stringMatching(/folded/));
    expect(await reopened.collection<Doc>("docs").countDocuments({})).toBe(acknowledged);
    expect((await readFile(journalPath)).equals(whole)).toBe(true);
    await reopened.close();
    await rm(dir, { recursive: true });
  });
});
