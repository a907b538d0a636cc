import { chmod, mkdir, open, readFile, rename, rm, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { Mutex } from "async-mutex";
import { NotReady } from "@vexil/errors";
import { StoreCorruptError } from "../errors.js";
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

/** What the journal says when it drops a record or cannot write; a pino logger fits. */
export interface StoreLog {
  error(details: Record<string, unknown>, message: string): void;
  warn(details: Record<string, unknown>, message: string): void;
  info(details: Record<string, unknown>, message: string): void;
}

const unlogged: StoreLog = { error: () => undefined, warn: () => undefined, info: () => undefined };

/** Wait before writing refused records again: 0.25 s doubling to 5 s, so space that returns is used within seconds. */
const retryDelayMs = (attempt: number) => Math.min(250 * 2 ** attempt, 5_000);
/** While the journal stays unwritable, one log line per this long (the first failure is logged at once). */
const stillFailingLogEveryMs = 60_000;

/** The first bytes of a dropped or corrupt record: enough to tell which collection it touched, short of the secrets records hold. */
const prefixOf = (bytes: Buffer) => bytes.subarray(0, 48).toString("utf8");

const reasonOf = (err: unknown) => (err instanceof Error ? ((err as NodeJS.ErrnoException).code ?? err.message) : String(err));

/** Records applied to memory whose journal write failed: written once the journal takes them, in commit order. */
interface WriteFailure {
  cause: unknown;
  since: Date;
  attempts: number;
  loggedAt: number;
  unwritten: Buffer;
  records: number;
  /** What every write gets meanwhile. */
  refusal: NotReady;
}

/**
 * Durability for the embedded engine: a snapshot file plus an append-only journal, one EJSON line
 * per committed write or transaction, fsync'd before the write is acknowledged. Commits are grouped:
 * a commit is applied to memory at once, in commit order, and its line queued; the lines queued
 * while one flush runs go to disk together in the next (one write, one fsync). So a commit is
 * visible to reads before it is durable (as MongoDB's "local" read concern allows), never
 * acknowledged before.
 *
 * A journal write is all or nothing: a short write or a failed fsync (a full disk) cuts the file
 * back to its last whole record, and every commit of the batch, and those queued behind it, is
 * refused (NotReady, 503: not confirmed). They stay in memory, where reads already saw them, and
 * are written again, in order, every few seconds (0.25 s doubling to 5 s) until the journal takes
 * them; meanwhile reads are served and every new write is refused before it changes anything. So
 * the disk never holds half a record, nothing acknowledged is lost, and the store takes writes
 * again by itself once space returns. A refused commit is durable once written again, unless the
 * process stops first (then it is gone, like any write that was never acknowledged).
 *
 * At open the journal is replayed over the snapshot. A torn last line (a write cut short by a crash,
 * never acknowledged) is cut off and logged at error with what it held; a line that does not parse
 * before the end stops the open (StoreCorruptError). Once the journal outgrows `compactAfterBytes`
 * and a quarter of the last snapshot (so rewriting a large state is paid for by as many appended
 * bytes, not once per few writes), the state is written to a new snapshot (temp file, fsync,
 * rename) and the journal emptied; a snapshot that cannot be written (no space for it) is logged
 * and tried again once the journal has grown by another `compactAfterBytes`. Replaying ops is
 * idempotent, so a crash between the rename and the truncation only replays what the snapshot
 * already holds. The data holds secrets (API tokens, password hashes): the directory is kept 0700
 * and its files 0600, whatever the umask.
 */
export class Journal {
  /** Serialises flushes, compaction and closing. */
  private readonly lock = new Mutex();
  /** Bytes of the journal known to end on a whole, durable record. */
  private size = 0;
  /** Bytes of the snapshot last written or read. */
  private snapshotSize = 0;
  /** No compaction below this journal size: raised after one failed. */
  private compactionPostponedTo = 0;
  /** Lines applied to memory and waiting for the next flush, in commit order. */
  private queued: QueuedLine[] = [];
  private flushing: Promise<void> | undefined;
  /** Set while records applied to memory could not be written: writes are refused until they are. */
  private failure: WriteFailure | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  /** Bytes of the last failed write that reached the file before it was cut back. */
  private lastCutBytes = 0;
  private closed = false;

  private constructor(
    private readonly dir: string,
    /** Null when opened read-only. */
    private readonly file: FileHandle | null,
    private readonly compactAfterBytes: number,
    /** The in-memory state this journal makes durable. */
    readonly state: StoreState,
    private readonly log: StoreLog,
  ) {}

  static async open(dir: string, compactAfterBytes: number, log: StoreLog = unlogged): Promise<Journal> {
    await mkdir(dir, { recursive: true, mode: privateDirectory });
    // A directory made by someone else (a mounted volume) keeps the mode its owner gave it.
    await chmod(dir, privateDirectory).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== "EPERM") throw err;
    });
    // Left by a compaction cut short: it only takes space.
    await rm(join(dir, `${SNAPSHOT}.tmp`), { force: true });
    const snapshot = await readIfExists(join(dir, SNAPSHOT));
    if (snapshot !== undefined) await chmod(join(dir, SNAPSHOT), privateFile);
    const journalPath = join(dir, JOURNAL);
    const journalBytes = (await readBytesIfExists(journalPath)) ?? Buffer.alloc(0);
    const { state, wholeBytes } = replay(dir, snapshot, journalBytes);
    const file = await open(journalPath, "a", privateFile);
    // A journal written by an older version may have been created readable by others.
    await file.chmod(privateFile);
    if (wholeBytes < journalBytes.length) {
      const torn = journalBytes.subarray(wholeBytes);
      log.error(
        { file: journalPath, offset: wholeBytes, bytes: torn.length, prefix: prefixOf(torn) },
        "store journal ends with a torn record (a write cut short, never acknowledged): dropped",
      );
      // Cut off before anything is appended, so it cannot become a corrupt line in the middle.
      await file.truncate(wholeBytes);
      await file.datasync();
    }
    const journal = new Journal(dir, file, compactAfterBytes, state, log);
    journal.size = wholeBytes;
    journal.snapshotSize = snapshot?.length ?? 0;
    if (wholeBytes > 0) await journal.lock.runExclusive(() => journal.compactOrPostpone());
    return journal;
  }

  /**
   * The state as another process (a running Vexil) keeps it in `dir`, read without writing
   * anything. That process may fold its journal into a new snapshot meanwhile, so the snapshot is
   * read before and after the journal, and all of it again until both reads agree. A torn last
   * line is that process's write in progress: left out, unlogged.
   */
  static async openReadOnly(dir: string): Promise<Journal> {
    for (;;) {
      const snapshot = await readIfExists(join(dir, SNAPSHOT));
      const journalBytes = (await readBytesIfExists(join(dir, JOURNAL))) ?? Buffer.alloc(0);
      if ((await readIfExists(join(dir, SNAPSHOT))) === snapshot)
        return new Journal(dir, null, Infinity, replay(dir, snapshot, journalBytes).state, unlogged);
    }
  }

  /**
   * Runs `apply` (which updates memory) at once, then resolves when `ops` are durable. Callers
   * append in commit order and apply nothing in between, so journal order is commit order.
   */
  append(ops: JournalOp[], apply: () => void): Promise<void> {
    if (this.failure) return Promise.reject(this.failure.refusal);
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

  /** Throws what writes get while the journal cannot be written (see the class). */
  assertWritable(): void {
    if (this.failure) throw this.failure.refusal;
  }

  /** Why writes are refused now, for health reports; undefined while the journal takes them. */
  writeFailure(): string | undefined {
    const failure = this.failure;
    if (!failure) return undefined;
    return `the journal cannot be written since ${failure.since.toISOString()} (${reasonOf(failure.cause)}): ${failure.records} records wait to be written, writes are refused meanwhile`;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    await this.flushing;
    await this.lock.runExclusive(async () => {
      if (this.failure) await this.writeUnwritten().catch(() => undefined);
      if (this.failure) {
        this.log.error(
          { records: this.failure.records, bytes: this.failure.unwritten.length, since: this.failure.since },
          "store closed with records its journal never took (refused to their callers): they are lost",
        );
      }
      await this.file?.close();
    });
  }

  /** Writes and fsyncs what is queued, again while more arrived meanwhile. */
  private async flush(): Promise<void> {
    while (this.queued.length > 0) {
      const batch = this.queued;
      this.queued = [];
      const lines = Buffer.concat(batch.map((entry) => entry.line));
      try {
        await this.lock.runExclusive(() => this.writeLines(lines));
        for (const entry of batch) entry.resolve();
      } catch (cause) {
        // The batch and what queued behind it are in memory already: kept, in order, to be written later.
        const refused = [...batch, ...this.queued];
        this.queued = [];
        this.fail(cause, Buffer.concat(refused.map((entry) => entry.line)), refused.length);
        const error = new NotReady(
          `The store could not write this change to its journal (${reasonOf(cause)}): it is not confirmed. Writes are refused until the journal can be written again`,
        );
        error.cause = cause;
        for (const entry of refused) entry.reject(error);
      }
    }
    // Cleared in the same turn as the loop's last check, so an append never waits on a finished flush.
    this.flushing = undefined;
  }

  private fail(cause: unknown, unwritten: Buffer, records: number): void {
    const refusal = new NotReady(
      `The store cannot write its journal (${reasonOf(cause)}): nothing was written. Writes are refused until it can (tried again every few seconds)`,
    );
    refusal.cause = cause;
    this.failure = { cause, since: new Date(), attempts: 0, loggedAt: Date.now(), unwritten, records, refusal };
    this.log.error(
      {
        err: cause,
        file: join(this.dir, JOURNAL),
        offset: this.size,
        cutBytes: this.lastCutBytes,
        records,
        bytes: unwritten.length,
        prefix: prefixOf(unwritten),
      },
      "store journal write failed: cut back to its last whole record; the records are refused and kept in memory, writes are refused until the journal takes them",
    );
    this.scheduleRetry();
  }

  /** One timer at a time, later after each failed attempt. */
  private scheduleRetry(): void {
    if (this.closed || this.retryTimer || !this.failure) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.retry();
    }, retryDelayMs(this.failure.attempts));
    this.retryTimer.unref();
  }

  private async retry(): Promise<void> {
    const failure = this.failure;
    if (!failure || this.closed) return;
    try {
      await this.lock.runExclusive(() => this.writeUnwritten());
    } catch (err) {
      failure.attempts++;
      if (Date.now() - failure.loggedAt >= stillFailingLogEveryMs) {
        failure.loggedAt = Date.now();
        this.log.warn(
          { err, since: failure.since, attempts: failure.attempts, records: failure.records },
          "store journal still cannot be written; writes are refused",
        );
      }
      this.scheduleRetry();
    }
  }

  /** Under the lock: the records refused meanwhile, written whole; the journal takes writes again once they are. */
  private async writeUnwritten(): Promise<void> {
    const failure = this.failure;
    if (!failure) return;
    // A cut back that failed left bytes past the last whole record.
    await this.file!.truncate(this.size);
    await this.appendWhole(failure.unwritten);
    this.failure = undefined;
    this.log.info(
      {
        since: failure.since,
        seconds: (Date.now() - failure.since.getTime()) / 1000,
        attempts: failure.attempts + 1,
        records: failure.records,
      },
      "store journal written again: the refused records are durable, writes are taken",
    );
  }

  private async writeLines(lines: Buffer): Promise<void> {
    await this.appendWhole(lines);
    if (this.size > Math.max(this.compactAfterBytes, this.snapshotSize / 4, this.compactionPostponedTo)) await this.compactOrPostpone();
  }

  /** Appends `lines` and syncs them, or cuts the journal back to its last whole record and throws. */
  private async appendWhole(lines: Buffer): Promise<void> {
    const file = this.file!;
    let written = 0;
    try {
      // A write may take part of the buffer (a disk filling up): the rest goes in the next one, or fails.
      while (written < lines.length) {
        const { bytesWritten } = await file.write(lines, written, lines.length - written);
        if (bytesWritten === 0) throw new Error(`The journal took none of the ${lines.length - written} bytes left to write`);
        written += bytesWritten;
      }
      await file.datasync();
    } catch (err) {
      this.lastCutBytes = written;
      // Only bytes past `size` are cut: they are the part of `lines` that got written, never a whole record.
      await file
        .truncate(this.size)
        .then(() => file.datasync())
        .catch((cutError: unknown) =>
          this.log.error(
            { err: cutError, offset: this.size, bytes: written },
            "store journal could not be cut back to its last whole record; done again before the next write",
          ),
        );
      throw err;
    }
    this.size += lines.length;
  }

  /** Folds the journal into a new snapshot; when that fails, the journal (which holds everything) grows on and it is tried later. */
  private async compactOrPostpone(): Promise<void> {
    try {
      await this.compact();
    } catch (err) {
      this.compactionPostponedTo = this.size + this.compactAfterBytes;
      this.log.error(
        { err, journalBytes: this.size, retryAtBytes: this.compactionPostponedTo },
        "store journal could not be folded into a new snapshot; nothing is lost, it is tried again once the journal has grown",
      );
    }
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
    } catch (err) {
      await file.close();
      // A part-written snapshot only takes the space the journal needs.
      await rm(temp, { force: true });
      throw err;
    }
    await file.close();
    await rename(temp, target);
    await syncDirectory(this.dir);
    await journalFile.truncate(0);
    await journalFile.sync();
    this.size = 0;
    this.snapshotSize = text.length;
    this.compactionPostponedTo = 0;
  }
}

async function readIfExists(path: string): Promise<string | undefined> {
  return (await readBytesIfExists(path))?.toString("utf8");
}

async function readBytesIfExists(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
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

/**
 * The state a snapshot and the journal written after it describe, and how many bytes of the
 * journal end on a whole line (what follows is a torn record, left out).
 */
function replay(dir: string, snapshot: string | undefined, journal: Buffer): { state: StoreState; wholeBytes: number } {
  const state = new StoreState();
  if (snapshot !== undefined) for (const op of fromEJSON<Snapshot>(snapshot).ops) state.apply(op);
  let start = 0;
  for (let line = 1, end = journal.indexOf(0x0a); end !== -1; line++, end = journal.indexOf(0x0a, start)) {
    let ops: JournalOp[];
    try {
      ops = fromEJSON<JournalOp[]>(journal.toString("utf8", start, end));
    } catch (cause) {
      throw new StoreCorruptError(join(dir, JOURNAL), line, start, prefixOf(journal.subarray(start, end)), { cause });
    }
    for (const op of ops) state.apply(op);
    start = end + 1;
  }
  return { state, wholeBytes: start };
}
