/**
 * A flag import larger than one chunk, on the embedded engine always and on MongoDB when
 * MONGODB_URL names a replica set: written a chunk per transaction under its progress record,
 * refused while another run of it may still be moving, and finished, not written twice, when
 * posted again after its run stopped (here: the store closed under it, as a crash would).
 */
import type { ImportToggles } from "@vexil/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTokenSecret } from "@vexil/auth";
import { createMemoryBus } from "@vexil/bus";
import { createMemoryCache } from "@vexil/cache";
import { NameExistsError, VexilError } from "@vexil/errors";
import { createLogger } from "@vexil/logger";
import type { StoreEngine } from "@vexil/store";
import { testEngineKinds } from "@vexil/store/testing";
import type { Actor } from "./access/actor.js";
import { createAdminDeps, type AdminDeps } from "./compose/index.js";
import type { EventDocument } from "./events/event-store.js";
import { testSecretBox } from "./secrets/secrets.fixture.js";
import { createAdminService } from "./service.js";
import { chunkImport, createImportProgressStore, importChunkLimits, importLeaseMs } from "./export-import/import-progress.js";
import type { ImportPlan } from "./export-import/import-checks.js";

const kinds = testEngineKinds("chunked flag import");
const admin: Actor = { name: "admin", userId: 1 };
const logger = createLogger({ service: "chunked-import-test", level: "silent" });
const environment = "development";

/** `count` flags, each with a strategy, a tag and its on/off state; the last one the child of the first. */
function bigImport(prefix: string, count: number): ImportToggles {
  const names = Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(4, "0")}`);
  return {
    project: "default",
    environment,
    data: {
      features: names.map((name) => ({ name, type: "release", description: `imported ${name}` })),
      featureStrategies: names.map((name, i) => ({
        name: "flexibleRollout",
        featureName: name,
        sortOrder: 0,
        parameters: { rollout: String(i % 101), stickiness: "default", groupId: name },
        constraints: [],
      })),
      featureEnvironments: names.map((name, i) => ({ featureName: name, environment, enabled: i % 2 === 0 })),
      featureTags: names.map((name) => ({ featureName: name, tagType: "simple", tagValue: prefix })),
      tagTypes: [{ name: "simple", description: "simple tag", icon: null }],
      dependencies: [{ feature: names[count - 1]!, dependencies: [{ feature: names[0]!, enabled: true }] }],
    },
  };
}

async function openAdmin(engine: StoreEngine, clock: () => Date = () => new Date()) {
  const deps = await createAdminDeps({
    engines: { store: engine, bus: createMemoryBus(), cache: createMemoryCache() },
    settings: {
      INIT_ADMIN_API_TOKENS: [createTokenSecret({ projects: ["*"], environment: "*" })],
      INIT_CLIENT_API_TOKENS: [],
      INIT_FRONTEND_API_TOKENS: [],
    },
    secrets: testSecretBox(),
    logger,
    clock,
  });
  const service = createAdminService(deps);
  await service.start();
  return { deps, stop: () => service.stop() };
}

const eventsOf = async (deps: AdminDeps, type: EventDocument["type"], project = "default") =>
  (await deps.events.list({ type, project, limit: 100_000 })).events;

async function flagsNamed(deps: AdminDeps, prefix: string) {
  const all = await deps.stores.features.list({ project: "default", archived: false });
  return all.filter((f) => f._id.startsWith(`${prefix}-`));
}

describe("chunk split", () => {
  it("keeps chunks within the flag and item limits, children last, every flag once", () => {
    const body = bigImport("split", 450);
    const plan: ImportPlan = { data: body.data, archived: [], segmentIds: new Map() };
    const chunks = chunkImport(plan, importChunkLimits);
    expect(chunks.map((c) => c.length)).toEqual([200, 200, 50]);
    expect(chunks.at(-1)!.at(-1)).toBe("split-0449");
    expect(new Set(chunks.flat()).size).toBe(450);
    // Three items a flag (itself, a strategy, a tag): 1,000 items hold 333 flags.
    const wide = chunkImport(plan, { flags: 1000, items: 1000 });
    expect(wide.map((c) => c.length)).toEqual([333, 117]);
  });
});

describe.each(kinds)("a chunked flag import: $name", (kind) => {
  let engine: StoreEngine;
  let reopen: () => Promise<StoreEngine>;
  let drop: () => Promise<void>;
  let admin1: Awaited<ReturnType<typeof openAdmin>>;

  beforeAll(async () => {
    ({ engine, reopen, drop } = await kind.open());
    admin1 = await openAdmin(engine);
  });
  afterAll(async () => {
    await admin1?.stop();
    await engine?.close();
    await drop?.();
  });

  it("an import within one chunk is one transaction, as before, with no progress record", async () => {
    const committed: EventDocument[][] = [];
    const stopListening = admin1.deps.unitOfWork.onCommitted((events) => committed.push(events));
    await admin1.deps.exportImport.importer.import(bigImport("small", 20), admin);
    stopListening();
    expect(committed).toHaveLength(1);
    expect(committed[0]!.filter((e) => e.type === "feature-created")).toHaveLength(20);
    expect(committed[0]!.at(-1)!.type).toBe("features-imported");
    expect(await createImportProgressStore(engine).get("default")).toBeNull();
  });

  it("a larger import commits a chunk per transaction and records each chunk", async () => {
    const committed: EventDocument[][] = [];
    const stopListening = admin1.deps.unitOfWork.onCommitted((events) => committed.push(events));
    await admin1.deps.exportImport.importer.import(bigImport("large", 450), admin);
    stopListening();

    const created = committed.map((events) => events.filter((e) => e.type === "feature-created").length);
    expect(created).toEqual([200, 200, 50]);
    expect(committed.flat().filter((e) => e.type === "features-imported")).toHaveLength(1);
    expect(committed.at(-1)!.at(-1)!.type).toBe("features-imported");

    const record = await createImportProgressStore(engine).get("default");
    expect(record).toMatchObject({ state: "complete", chunksDone: 3, resumes: 0, environment, startedBy: "admin", stoppedBecause: null });
    expect(record!.chunks.map((c) => c.length)).toEqual([200, 200, 50]);

    const flags = await flagsNamed(admin1.deps, "large");
    expect(flags).toHaveLength(450);
    for (const flag of flags) expect(flag.environments[environment]!.strategies).toHaveLength(1);
    const child = flags.find((f) => f._id === "large-0449")!;
    expect(child.dependencies).toEqual([{ feature: "large-0000", enabled: true, variants: [] }]);
  });

  it("a run that stops leaves its chunks and a record; the same import posted again is refused while the run may be alive, then finished", async () => {
    const body = bigImport("crash", 1000);
    // Closing the store right after the first chunk commits, before the next begins: the crash of a process.
    const stopListening = admin1.deps.unitOfWork.onCommitted(() => {
      stopListening();
      void engine.close();
    });
    const stopped = await admin1.deps.exportImport.importer.import(body, admin).then(
      () => null,
      (err: unknown) => err,
    );
    expect(stopped).toBeInstanceOf(VexilError);
    expect((stopped as VexilError).status).toBe(503);
    expect((stopped as VexilError).message).toMatch(
      /^The import stopped after 1 of 5 chunks \(200 of 1000 flags written, each whole\); post the same import again/,
    );
    await admin1.stop();

    // The process starts again on the same store.
    let now = Date.now();
    engine = await reopen();
    admin1 = await openAdmin(engine, () => new Date(now));
    const progress = createImportProgressStore(engine);
    expect(await progress.get("default")).toMatchObject({ state: "running", chunksDone: 1 });
    expect(await flagsNamed(admin1.deps, "crash")).toHaveLength(200);

    // Within the lease the run may still be alive elsewhere (another replica): refused, saying when it may be resumed.
    const refused = await admin1.deps.exportImport.importer.import(body, admin).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(NameExistsError);
    expect((refused as Error).message).toMatch(
      /An import into project default is running \(1 of 5 chunks written.*post that import again after/,
    );
    await expect(admin1.deps.exportImport.importer.import(bigImport("other", 300), admin)).rejects.toBeInstanceOf(NameExistsError);

    now += importLeaseMs + 1000;
    await admin1.deps.exportImport.importer.import(body, admin);
    expect(await progress.get("default")).toMatchObject({ state: "complete", chunksDone: 5, resumes: 1 });
    const flags = await flagsNamed(admin1.deps, "crash");
    expect(flags).toHaveLength(1000);
    for (const flag of flags) expect(flag.environments[environment]!.strategies).toHaveLength(1);
    const createdOnce = (await eventsOf(admin1.deps, "feature-created")).filter((e) => e.featureName?.startsWith("crash-"));
    expect(createdOnce).toHaveLength(1000);
    expect(await eventsOf(admin1.deps, "features-imported")).toHaveLength(3);
  });

  it("a different import replaces one that stopped with an error, and starts from its first chunk", async () => {
    const progress = createImportProgressStore(engine);
    const stoppedAt = new Date();
    // What a run stopped by an error leaves: its record marked interrupted, with the reason.
    await engine.withTransaction((session) =>
      progress.put(
        {
          _id: "default",
          importId: "stopped-run",
          environment,
          digest: "of another body",
          state: "interrupted",
          chunks: [["gone-0000"], ["gone-0001"]],
          chunksDone: 1,
          startedBy: "admin",
          startedAt: stoppedAt,
          progressAt: stoppedAt,
          finishedAt: null,
          stoppedBecause: "The store stayed busy",
          resumes: 0,
        },
        session,
      ),
    );
    await admin1.deps.exportImport.importer.import(bigImport("next", 250), admin);
    const record = await progress.get("default");
    expect(record).toMatchObject({ state: "complete", chunksDone: 2, resumes: 0, stoppedBecause: null });
    expect(record!.importId).not.toBe("stopped-run");
    expect(await flagsNamed(admin1.deps, "next")).toHaveLength(250);
  });
});
