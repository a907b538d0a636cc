import { chmod, mkdir, open, readFile, rename, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { Mutex } from "async-mutex";
import { fromEJSON, toEJSON } from "./ejson.js";
import { StoreState, type JournalOp } from "./state.js";

const SNAPSHOT = "snapshot.ejson";
const JOURNAL = "journal.ejsonl";
const privateDirectory = 0o700;
const privateFile = 0o600;

interface Snapshot {
  format: 1;
  ops: JournalOp[];
}

/**
 * Durability for the embedded engine: a snapshot file plus an append-only journal, one EJSON line
 * per committed write or transaction, fsync'd before the write is acknowledged. At open the journal
 * is replayed over the snapshot (a torn last line, left by a crash mid-write, is ignored); once the
 * journal outgrows `compactAfterBytes` the state is written to a new snapshot (temp file, fsync,
 * rename) and the journal emptied. Replaying ops is idempotent, so a crash between the rename and
 * the truncation only replays what the snapshot already holds. The data holds secrets (API tokens,
 * password hashes): the directory is kept 0700 and its files 0600, whatever the umask.
 */
export class Journal {
  /** Serialises appends and compaction, so journal order is commit order. */
  private readonly lock = new Mutex();
  /** Bytes of the journal known to end on a complete line. */
  private size = 0;

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
   * Makes `ops` durable, then runs `apply` (which updates memory) before the next append or
   * compaction can start, so a snapshot never misses an acknowledged write.
   */
  async append(ops: JournalOp[], apply: () => void): Promise<void> {
    if (ops.length === 0) return apply();
    const file = this.file;
    if (!file) throw new Error(`The store in ${this.dir} was opened read-only`);
    const line = Buffer.from(toEJSON(ops) + "\n");
    await this.lock.runExclusive(async () => {
      try {
        await file.write(line);
        await file.datasync();
      } catch (err) {
        // Cut off a partial line, so that the next append does not continue it.
        await file.truncate(this.size).catch(() => undefined);
        throw err;
      }
      this.size += line.length;
      apply();
      if (this.size > this.compactAfterBytes) await this.compact();
    });
  }

  async close(): Promise<void> {
    await this.lock.runExclusive(async () => this.file?.close());
  }

  private async compact(): Promise<void> {
    const journalFile = this.file;
    if (!journalFile) throw new Error(`The store in ${this.dir} was opened read-only`);
    const snapshot: Snapshot = { format: 1, ops: [...this.state.ops()] };
    const target = join(this.dir, SNAPSHOT);
    const temp = `${target}.tmp`;
    const file = await open(temp, "w", privateFile);
    try {
      await file.chmod(privateFile);
      await file.writeFile(toEJSON(snapshot));
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, target);
    await syncDirectory(this.dir);
    await journalFile.truncate(0);
    await journalFile.sync();
    this.size = 0;
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
