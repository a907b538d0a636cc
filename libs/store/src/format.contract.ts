import { describe, expect, it } from "vitest";
import type { StoreEngine } from "./collection.js";
import { formatCollection, migrateStore, StoreFormatTooNewError, type FormatMarker, type FormatStep, type StoreFormat } from "./format.js";

interface Flag {
  _id: number;
  name?: string;
  title?: string;
  kind?: string;
}

/** Format 1 renamed `name` to `title`; format 2 gave every flag a `kind`. Both steps are idempotent, as steps must be. */
const steps: FormatStep[] = [
  {
    description: "flags: name becomes title",
    async run(engine) {
      await engine.collection<Flag>("flags").updateMany({ name: { $exists: true } }, { $rename: { name: "title" } });
    },
  },
  {
    description: "flags: every flag has a kind",
    async run(engine) {
      await engine.collection<Flag>("flags").updateMany({ kind: { $exists: false } }, { $set: { kind: "release" } });
    },
  },
];
const format: StoreFormat = { service: "flags-service", steps };

function recordingLog() {
  const lines: Array<{ details: Record<string, unknown>; message: string }> = [];
  return { lines, info: (details: Record<string, unknown>, message: string) => void lines.push({ details, message }) };
}

/**
 * What every engine must do for format versions: mark a new store, migrate an old one step by step
 * with a log line and a record per step, refuse a newer one without touching it, resume after a
 * step that failed, and record each step once when two processes migrate at once. `freshEngine`
 * opens a new, empty store on each call.
 */
export function describeFormatContract(name: string, freshEngine: () => Promise<StoreEngine>): void {
  describe(`Format contract: ${name}`, () => {
    const withEngine = async (test: (engine: StoreEngine) => Promise<void>) => {
      const engine = await freshEngine();
      try {
        await test(engine);
      } finally {
        await engine.close();
      }
    };
    const markerOf = (engine: StoreEngine) => engine.collection<FormatMarker>(formatCollection).findOne({ _id: format.service });
    const flags = (engine: StoreEngine) => engine.collection<Flag>("flags").find({}, { sort: { _id: 1 } });

    it("marks an empty store with the current format and runs no step", () =>
      withEngine(async (engine) => {
        const log = recordingLog();
        expect(await migrateStore(engine, format, log)).toEqual({ found: 2, format: 2 });
        expect(await markerOf(engine)).toMatchObject({ format: 2, migrations: [] });
        expect(log.lines.map((line) => line.message)).toEqual(["new flags-service store, written in format 2"]);
        // The next start finds it current and says nothing.
        const again = recordingLog();
        expect(await migrateStore(engine, format, again)).toEqual({ found: 2, format: 2 });
        expect(again.lines).toEqual([]);
      }));

    it("takes data without a marker as format 0 and runs every step in order, each logged and recorded", () =>
      withEngine(async (engine) => {
        await engine.collection<Flag>("flags").insertMany([
          { _id: 1, name: "checkout" },
          { _id: 2, name: "search", kind: "ops" },
        ]);
        const log = recordingLog();
        expect(await migrateStore(engine, format, log)).toEqual({ found: 0, format: 2 });
        expect(await flags(engine)).toEqual([
          { _id: 1, title: "checkout", kind: "release" },
          { _id: 2, title: "search", kind: "ops" },
        ]);
        expect(log.lines.map((line) => line.message)).toEqual([
          "the flags-service store is in format 0 (written before formats were recorded): migrating it to format 2, one step at a time",
          "migrating the flags-service store to format 1: flags: name becomes title",
          "the flags-service store is in format 1",
          "migrating the flags-service store to format 2: flags: every flag has a kind",
          "the flags-service store is in format 2",
        ]);
        const marker = await markerOf(engine);
        expect(marker?.format).toBe(2);
        expect(marker?.migrations.map(({ from, to, description }) => ({ from, to, description }))).toEqual([
          { from: 0, to: 1, description: "flags: name becomes title" },
          { from: 1, to: 2, description: "flags: every flag has a kind" },
        ]);
        expect(marker?.migrations[0]?.finishedAt).toBeInstanceOf(Date);
      }));

    it("counts a store whose only trace is a used sequence as data of format 0", () =>
      withEngine(async (engine) => {
        await engine.nextSequence("flags");
        expect(await migrateStore(engine, format, recordingLog())).toEqual({ found: 0, format: 2 });
      }));

    it("runs only the steps after the recorded format", () =>
      withEngine(async (engine) => {
        await engine.collection<Flag>("flags").insertOne({ _id: 1, name: "kept as written in format 1" });
        await engine
          .collection<FormatMarker>(formatCollection)
          .insertOne({ _id: format.service, format: 1, markedAt: new Date(), migrations: [] });
        expect(await migrateStore(engine, format, recordingLog())).toEqual({ found: 1, format: 2 });
        expect(await flags(engine)).toEqual([{ _id: 1, name: "kept as written in format 1", kind: "release" }]);
      }));

    it("refuses a store in a newer format, naming both formats, and changes nothing", () =>
      withEngine(async (engine) => {
        await engine.collection<Flag>("flags").insertOne({ _id: 1, name: "from the future" });
        await engine
          .collection<FormatMarker>(formatCollection)
          .insertOne({ _id: format.service, format: 3, markedAt: new Date(), migrations: [] });
        const refusal = await migrateStore(engine, format, recordingLog()).catch((err: unknown) => err);
        expect(refusal).toBeInstanceOf(StoreFormatTooNewError);
        expect(refusal).toMatchObject({ service: "flags-service", found: 3, supported: 2 });
        expect((refusal as Error).message).toMatch(
          /^The flags-service store is in format 3, newer than this release of Vexil reads \(formats up to 2\)/,
        );
        expect(await flags(engine)).toEqual([{ _id: 1, name: "from the future" }]);
        expect((await markerOf(engine))?.format).toBe(3);
      }));

    it("keeps the format of the last finished step when a step fails, and finishes on the next start", () =>
      withEngine(async (engine) => {
        await engine.collection<Flag>("flags").insertOne({ _id: 1, name: "checkout" });
        const failing: StoreFormat = {
          service: format.service,
          steps: [steps[0]!, { description: steps[1]!.description, run: () => Promise.reject(new Error("the disk filled up")) }],
        };
        await expect(migrateStore(engine, failing, recordingLog())).rejects.toThrow("the disk filled up");
        expect((await markerOf(engine))?.format).toBe(1);
        expect(await migrateStore(engine, format, recordingLog())).toEqual({ found: 1, format: 2 });
        expect(await flags(engine)).toEqual([{ _id: 1, title: "checkout", kind: "release" }]);
        expect((await markerOf(engine))?.migrations.map((m) => m.to)).toEqual([1, 2]);
      }));

    it("records each step once when two processes migrate the same store at once", () =>
      withEngine(async (engine) => {
        await engine.collection<Flag>("flags").insertMany([
          { _id: 1, name: "checkout" },
          { _id: 2, name: "search" },
        ]);
        const results = await Promise.all([migrateStore(engine, format, recordingLog()), migrateStore(engine, format, recordingLog())]);
        expect(results.map((result) => result.format)).toEqual([2, 2]);
        expect(await flags(engine)).toEqual([
          { _id: 1, title: "checkout", kind: "release" },
          { _id: 2, title: "search", kind: "release" },
        ]);
        expect((await markerOf(engine))?.migrations.map((m) => m.to)).toEqual([1, 2]);
      }));
  });
}
