import { createHash, randomUUID } from "node:crypto";
import type { ImportToggles } from "@vexil/contracts";
import { NameExistsError, VexilError } from "@vexil/errors";
import type { Logger } from "@vexil/logger";
import type { StoreEngine, StoreSession } from "@vexil/store";
import type { Actor } from "../access/actor.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import type { ImportPlan } from "./import-checks.js";

/**
 * The record of an import written in more than one chunk: which import (its body's digest), how
 * its flags are split, how many chunks have committed, and whether it is running, stopped or done.
 * One per project (`_id`): a project takes one chunked import at a time, so two never interleave.
 */
export interface ImportProgressDocument {
  _id: string;
  importId: string;
  environment: string;
  /** SHA-256 of the project, environment and data: the same body posted again is the same import. */
  digest: string;
  state: "running" | "interrupted" | "complete";
  /** The flag names of each chunk, fixed when the import starts, so a resumed import writes the same chunks. */
  chunks: string[][];
  /** Chunks committed: chunk `chunksDone` is the next to write. */
  chunksDone: number;
  startedBy: string;
  startedAt: Date;
  /** When the last chunk committed (or the import started or resumed): a running import older than its lease is taken to have stopped. */
  progressAt: Date;
  finishedAt: Date | null;
  /** Why the last run stopped, when it stopped with an error. */
  stoppedBecause: string | null;
  /** How many times it was resumed after stopping. */
  resumes: number;
}

export interface ImportProgressStore {
  get(project: string, session?: StoreSession): Promise<ImportProgressDocument | null>;
  put(doc: ImportProgressDocument, session: StoreSession): Promise<void>;
  /** Records chunk `done - 1` as committed, in that chunk's transaction; false when the record is no longer this import's at that chunk. */
  advance(project: string, importId: string, done: number, at: Date, session: StoreSession, complete: boolean): Promise<boolean>;
  /** Marks a run stopped (outside any transaction: the chunk's has failed). */
  interrupt(project: string, importId: string, reason: string): Promise<void>;
}

export function createImportProgressStore(engine: StoreEngine): ImportProgressStore {
  const progress = engine.collection<ImportProgressDocument>("import_progress");
  return {
    get: (project, session) => progress.findOne({ _id: project }, { session }),
    async put(doc, session) {
      await progress.replaceOne({ _id: doc._id }, doc, { session, upsert: true });
    },
    async advance(project, importId, done, at, session, complete) {
      const { matchedCount } = await progress.updateOne(
        { _id: project, importId, state: "running", chunksDone: done - 1 },
        { $set: { chunksDone: done, progressAt: at, ...(complete ? { state: "complete" as const, finishedAt: at } : {}) } },
        { session },
      );
      return matchedCount === 1;
    },
    async interrupt(project, importId, reason) {
      await progress.updateOne({ _id: project, importId, state: "running" }, { $set: { state: "interrupted", stoppedBecause: reason } });
    },
  };
}

/** What one chunk's transaction writes at most: this many flags, and this many flags, strategies and tags together. */
export const importChunkLimits = { flags: 200, items: 1000 };
/**
 * A chunked import that has committed nothing for this long is taken to have stopped (its server
 * ended): each chunk's transaction gives up after 15 s, so a live import moves far more often.
 */
export const importLeaseMs = 60_000;

/** The same project, environment and data: the same import, posted again. */
const importDigest = (input: ImportToggles) =>
  createHash("sha256")
    .update(JSON.stringify([input.project, input.environment, input.data]))
    .digest("hex");

/**
 * The plan's flags in chunks within `limits`, in the data's order but with the flags that get a
 * parent last: each child's dependency is written with the child, after every parent it can name.
 */
export function chunkImport(plan: ImportPlan, limits: { flags: number; items: number }): string[][] {
  const children = new Set((plan.data.dependencies ?? []).map((d) => d.feature));
  const names = plan.data.features.map((f) => f.name);
  const ordered = [...names.filter((n) => !children.has(n)), ...names.filter((n) => children.has(n))];
  const weight = new Map(names.map((n) => [n, 1]));
  for (const s of plan.data.featureStrategies) weight.set(s.featureName, (weight.get(s.featureName) ?? 1) + 1);
  for (const t of plan.data.featureTags ?? []) weight.set(t.featureName, (weight.get(t.featureName) ?? 1) + 1);
  const chunks: string[][] = [];
  let current: string[] = [];
  let items = 0;
  for (const name of ordered) {
    const w = weight.get(name) ?? 1;
    if (current.length > 0 && (current.length >= limits.flags || items + w > limits.items)) {
      chunks.push(current);
      current = [];
      items = 0;
    }
    current.push(name);
    items += w;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

export interface ImportRunDeps {
  store: ImportProgressStore;
  unitOfWork: UnitOfWork;
  clock: () => Date;
  logger: Logger;
  leaseMs: number;
}

/** The runs of chunked imports: who may write a project's import now, and what a run that stops leaves said. */
export class ImportRuns {
  constructor(private readonly deps: ImportRunDeps) {}

  /**
   * Starts the project's chunked import, or resumes it when this is the same import, stopped; a
   * different import replaces a stopped one. Refused (409) while another run is moving.
   */
  async claim(input: ImportToggles, actor: Actor, chunks: string[][]): Promise<ImportProgressDocument> {
    const digest = importDigest(input);
    const now = this.deps.clock();
    const { record, replaced } = await this.deps.unitOfWork.run(async (tx) => {
      const current = await this.deps.store.get(input.project, tx.session);
      if (current?.state === "running" && now.getTime() - current.progressAt.getTime() < this.deps.leaseMs) {
        const resumeAt = new Date(current.progressAt.getTime() + this.deps.leaseMs).toISOString();
        throw new NameExistsError(
          `An import into project ${input.project} is running (${current.chunksDone} of ${current.chunks.length} chunks written, ` +
            `the last at ${current.progressAt.toISOString()}); wait for it to finish. If the server running it stopped, ` +
            `post that import again after ${resumeAt} to finish it`,
        );
      }
      if (current && current.state !== "complete" && current.digest === digest) {
        const resumed: ImportProgressDocument = {
          ...current,
          state: "running",
          progressAt: now,
          stoppedBecause: current.stoppedBecause ?? "its server stopped before it finished",
          resumes: current.resumes + 1,
        };
        await this.deps.store.put(resumed, tx.session);
        return { record: resumed, replaced: null };
      }
      const started: ImportProgressDocument = {
        _id: input.project,
        importId: randomUUID(),
        environment: input.environment,
        digest,
        state: "running",
        chunks,
        chunksDone: 0,
        startedBy: actor.name,
        startedAt: now,
        progressAt: now,
        finishedAt: null,
        stoppedBecause: null,
        resumes: 0,
      };
      await this.deps.store.put(started, tx.session);
      return { record: started, replaced: current && current.state !== "complete" ? current : null };
    });
    const log = { importId: record.importId, project: record._id, environment: record.environment, chunks: record.chunks.length };
    if (replaced) {
      this.deps.logger.warn(
        { ...log, replacedImportId: replaced.importId, replacedChunksDone: replaced.chunksDone, replacedChunks: replaced.chunks.length },
        "a different import replaces one that stopped unfinished; the chunks it wrote stay",
      );
    }
    if (record.resumes > 0) this.deps.logger.info({ ...log, from: record.chunksDone, resumes: record.resumes }, "import resumed");
    else this.deps.logger.info(log, "import started in chunks");
    return record;
  }

  /** Records where the run stopped and why, and says so in the error the client gets. */
  async stopped(record: ImportProgressDocument, chunk: number, err: unknown): Promise<never> {
    const reason = err instanceof Error ? err.message : String(err);
    const total = record.chunks.length;
    // The store may be what failed: the record then stays `running` and its lease says it stopped.
    await this.deps.store.interrupt(record._id, record.importId, reason).catch((markErr: unknown) => {
      this.deps.logger.error({ err: markErr, importId: record.importId }, "could not record where the import stopped");
    });
    this.deps.logger.warn(
      { err, importId: record.importId, project: record._id, chunksDone: chunk, chunks: total },
      "import stopped before it finished; the same import posted again goes on from where it stopped",
    );
    if (chunk > 0 && err instanceof VexilError) {
      const written = record.chunks.slice(0, chunk).reduce((sum, names) => sum + names.length, 0);
      const flags = record.chunks.reduce((sum, names) => sum + names.length, 0);
      err.message =
        `The import stopped after ${chunk} of ${total} chunks (${written} of ${flags} flags written, each whole); ` +
        `post the same import again to finish it. ${err.message}`;
    }
    throw err;
  }
}
