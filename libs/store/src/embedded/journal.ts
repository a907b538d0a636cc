import { chmod, mkdir, open, readFile, rename, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { Mutex } from "async-mutex";
import { NotReady } from "@vexil/errors";
import { ejsonOf } from "./documents.js";
import { fromEJSON, toEJSON } from "./ejson.js";
import { StoreState, type JournalOp } from "./state.js";

const SNAPSHOT = "snapshot.ejson";
const JOURNAL = "journal.ejsonl";
const privateDirectory = 0o700;
const privateFile = 0o600;

/** A journal line's ops as EJSON text (as `toEJSON(ops)` writes them), each stored document's text reused. */
function opsText(ops: readonly JournalOp[]): string {
  const parts = ops.map((op) => (op.op === "put" ? `{"op":"put","c":${JSON.stringify(op.c)},"doc":${ejsonOf(op.doc)}}` : toEJSON(op)));
  return `[${parts.join(",")}]`;
}

interface QueuedLine {
  line: Buffer;
  resolve(): void;
  reject(err: unknown): void;
}

interface Snapshot {
  format: 1;
  ops: JournalOp[];
}

/**
 * Durability for the embedded engine: a snapshot file plus an append-only journal, one EJSON line
 * per committed write or transaction, fsync'd before the write is acknowledged. Commits are grouped:
 * a commit is applied to memory at once, in commit order, and its line queued; the lines queued
 * while one flush runs go to disk together in the next (one write, one fsync). So a commit is
 * visible to reads before it is durable (as MongoDB's "local" read concern allows), never
 * acknowledged before. A failed write or fsync leaves memory ahead of the disk with no safe way
 * back: the journal then refuses everything (NotReady) until the process restarts and replays what
 * the disk holds, which includes every acknowledged commit.
 *
 * At open the journal is replayed over the snapshot (a torn last line, left by a crash mid-write,
 * is ignored); once the journal outgrows `compactAfterBytes` and a quarter of the last snapshot
 * (so rewriting a large state is paid for by as many appended bytes, not once per few writes), the
 * state is written to a new snapshot (temp file, fsync, rename) and the journal emptied. Replaying
 * ops is idempotent, so a crash between the rename and the truncation only replays what the
 * snapshot already holds. The data holds secrets (API tokens, password hashes): the directory is
 * kept 0700 and its files 0600, whatever the umask.
 */
export class Journal {
  /** Serialises flushes, compaction and closing. */
  private readonly lock = new Mutex();
  /** Bytes of the journal known to end on a complete line. */
  private size = 0;
  /** Bytes of the snapshot last written or read. */
  private snapshotSize = 0;
  /** Lines applied to memory and waiting for the next flush, in commit order. */
  private queued: QueuedLine[] = [];
  private flushing: Promise<void> | undefined;
  /** Set by a failed write or fsync: memory may hold commits the disk does not. */
  private failure: NotReady | undefined;

  private constructor(
    private readonly dir: string,
    /** Null when opened read-only. */
    private readonly file: FileHandle | null,
    private readonly compactAfterBytes: number,
    /** The in-memory state this journal makes durable. */
    readonly state: StoreState,
  ) {}

  static async open(dir: string, compactAfterBytes: number): Promise<Journal> {
    await mkdir(dir, { recursive: true, mode: privateDirectory });
    // A directory made by someone else (a mounted volume) keeps the mode its owner gave it.
    await chmod(dir, privateDirectory).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== "EPERM") throw err;
    });
    const snapshot = await readIfExists(join(dir, SNAPSHOT));
    if (snapshot !== undefined) await chmod(join(dir, SNAPSHOT), privateFile);
    const journalText = (await readIfExists(join(dir, JOURNAL))) ?? "";
    const state = replay(dir, snapshot, journalText);
    const file = await open(join(dir, JOURNAL), "a", privateFile);
    // A journal written by an older version may have been created readable by others.
    await file.chmod(privateFile);
    const journal = new Journal(dir, file, compactAfterBytes, state);
    journal.snapshotSize = snapshot?.length ?? 0;
    // Folding the replayed journal into a snapshot also drops a torn tail before anything is appended.
    if (journalText.length > 0) await journal.lock.runExclusive(() => journal.compact());
    return journal;
  }

  /**
   * The state as another process (a running Vexil) keeps it in `dir`, read without writing
   * anything. That process may fold its journal into a new snapshot meanwhile, so the snapshot is
   * read before and after the journal, and all of it again until both reads agree.
   */
  static async openReadOnly(dir: string): Promise<Journal> {
    for (;;) {
      const snapshot = await readIfExists(join(dir, SNAPSHOT));
      const journalText = (await readIfExists(join(dir, JOURNAL))) ?? "";
      if ((await readIfExists(join(dir, SNAPSHOT))) === snapshot)
        return new Journal(dir, null, Infinity, replay(dir, snapshot, journalText));
    }
  }

  /**
   * Runs `apply` (which updates memory) at once, then resolves when `ops` are durable. Callers
   * append in commit order and apply nothing in between, so journal order is commit order.
   */
  append(ops: JournalOp[], apply: () => void): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (ops.length === 0) {
      apply();
      return Promise.resolve();
    }
    if (!this.file) return Promise.reject(new Error(`The store in ${this.dir} was opened read-only`));
    const line = Buffer.from(opsText(ops) + "\n");
    apply();
    return new Promise((resolve, reject) => {
      this.queued.push({ line, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  /** Rejects when a write or fsync failed: the state in memory is then not what the disk holds. */
  assertHealthy(): void {
    if (this.failure) throw this.failure;
  }

  async close(): Promise<void> {
    await this.flushing;
    await this.lock.runExclusive(async () => this.file?.close());
  }

  /** Writes and fsyncs what is queued, again while more arrived meanwhile. */
  private async flush(): Promise<void> {
    while (this.queued.length > 0) {
      const batch = this.queued;
      this.queued = [];
      try {
        await this.lock.runExclusive(() => this.writeLines(Buffer.concat(batch.map((entry) => entry.line))));
        for (const entry of batch) entry.resolve();
      } catch (cause) {
        this.failure = new NotReady(`The store in ${this.dir} could not write its journal; restart to recover`);
        this.failure.cause = cause;
        for (const entry of [...batch, ...this.queued]) entry.reject(this.failure);
        this.queued = [];
      }
    }
    // Cleared in the same turn as the loop's last check, so an append never waits on a finished flush.
    this.flushing = undefined;
  }

  private async writeLines(lines: Buffer): Promise<void> {
    const file = this.file!;
    try {
      await file.write(lines);
      await file.datasync();
    } catch (err) {
      // Cut off a partial line, so that a restart does not read it as a line of its own.
      await file.truncate(this.size).catch(() => undefined);
      throw err;
    }
    this.size += lines.length;
    if (this.size > Math.max(this.compactAfterBytes, this.snapshotSize / 4)) await this.compact();
  }

  private async compact(): Promise<void> {
    const journalFile = this.file;
    if (!journalFile) throw new Error(`The store in ${this.dir} was opened read-only`);
    const target = join(this.dir, SNAPSHOT);
    const temp = `${target}.tmp`;
    // A Snapshot as EJSON, each document's stored text reused.
    const text = `{"format":1,"ops":${opsText([...this.state.ops()])}}`;
    const file = await open(temp, "w", privateFile);
    try {
      await file.chmod(privateFile);
      await file.writeFile(text);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, target);
    await syncDirectory(this.dir);
    await journalFile.truncate(0);
    await journalFile.sync();
    this.size = 0;
    this.snapshotSize = text.length;
  }
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/** Makes the rename itself durable. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The state a snapshot and the journal written after it describe (a torn last journal line, left by a crash, is ignored). */
function replay(dir: string, snapshot: string | undefined, journalText: string): StoreState {
  const state = new StoreState();
  if (snapshot !== undefined) for (const op of fromEJSON<Snapshot>(snapshot).ops) state.apply(op);
  const lines = journalText.split("\n");
  // The last element is "" after a complete journal, or the torn remains of an interrupted write.
  lines.pop();
  lines.forEach((line, index) => {
    let ops: JournalOp[];
    try {
      ops = fromEJSON<JournalOp[]>(line);
    } catch (cause) {
      throw new Error(`Corrupt store journal ${join(dir, JOURNAL)} at line ${index + 1}`, { cause });
    }
    for (const op of ops) state.apply(op);
  });
  return state;
}
