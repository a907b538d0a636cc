import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createEmbeddedEngine, formatCollection, type FormatMarker, type StoreEngine } from "@vexil/store";
import { tokenSecret } from "../src/tokens.js";
import { startVexilProcess } from "../src/vexil-process.js";

/**
 * The data directory of an installation across releases: a start marks new stores with their
 * format, migrates one written before formats were recorded (saying so in the log), and refuses
 * one a newer release wrote, naming both formats.
 */
const adminToken = tokenSecret("*", "*");
let dataDir: string;
afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function withStore(service: string, change: (engine: StoreEngine) => Promise<unknown>): Promise<void> {
  const engine = await createEmbeddedEngine({ dir: path.join(dataDir, service) });
  try {
    await change(engine);
  } finally {
    await engine.close();
  }
}

describe("store formats across starts of `npm start` (the compiled gateway)", () => {
  it("marks new stores, migrates a store without a marker, and refuses one from a newer release", async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "vexil-store-format-"));
    const env = { INIT_ADMIN_API_TOKENS: adminToken };
    const first = await startVexilProcess({ dataDir, env });
    try {
      const marked = first.logLines().filter((line) => /^new .* store, written in format 1$/.test(line.msg));
      expect(marked.map((line) => line.store).sort()).toEqual(["addon-delivery", "admin", "signal-ingest"]);
    } finally {
      await first.stop();
    }

    // As a release before format versions left it: the same data, no markers.
    for (const service of ["admin", "signal-ingest", "addon-delivery"]) {
      await withStore(service, (engine) => engine.collection<FormatMarker>(formatCollection).deleteMany({}));
    }
    const upgraded = await startVexilProcess({ dataDir, env });
    try {
      const steps = upgraded.logLines().filter((line) => line.module === "store-format" && line.from === 0 && line.to === 1);
      // Per store: the plan, the step, and its end, each logged.
      expect(steps.filter((line) => line.store === "admin").map((line) => line.msg)).toEqual([
        "the admin store is in format 0 (written before formats were recorded): migrating it to format 1, one step at a time",
        expect.stringMatching(/^migrating the admin store to format 1: users get their logins/),
        "the admin store is in format 1",
      ]);
      const projects = await fetch(`${upgraded.url}/api/admin/projects`, { headers: { authorization: adminToken } });
      expect(projects.status).toBe(200);
    } finally {
      await upgraded.stop();
    }

    await withStore("admin", (engine) =>
      engine.collection<FormatMarker>(formatCollection).updateOne({ _id: "admin" }, { $set: { format: 99 } }),
    );
    await expect(startVexilProcess({ dataDir, env, readyTimeoutMs: 60_000 })).rejects.toThrow(
      /The admin store is in format 99, newer than this release of Vexil reads \(formats up to 1\)/,
    );
  }, 240_000);
});
