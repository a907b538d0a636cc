import { AsyncLocalStorage } from "node:async_hooks";
import { Mutex, type MutexInterface } from "async-mutex";
import { NotReady } from "@vexil/errors";
import type { SessionOption, StoreSession, TransactionOptions } from "../collection.js";
import { refusals, StoreBusyError } from "../errors.js";
import type { Journal } from "./journal.js";
import { Draft, type JournalOp } from "./state.js";

/** How long a write or transaction waits for the store when none is given (see `TransactionOptions`). */
export const defaultTransactionTimeoutMs = 15_000;

/** The handle `withTransaction` passes to its callback: a draft that commits when the callback resolves. */
export class EmbeddedSession {
  active = true;
  /** Set by a failed operation: like MongoDB, the transaction can then only abort. */
  failure: unknown = undefined;
  constructor(
    readonly owner: EmbeddedCore,
    readonly draft: Draft,
    /** A snapshot session (`withSnapshot`): it reads, never writes. */
    readonly readOnly = false,
  ) {}
}

/** Waits for the mutex at most `timeoutMs`; a lock granted after giving up is handed back at once. */
async function acquireWithin(mutex: Mutex, timeoutMs: number): Promise<MutexInterface.Releaser> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const acquiring = mutex.acquire();
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      void acquiring.then((release) => release());
      reject(new StoreBusyError(`The store stayed busy for ${timeoutMs} ms (another transaction held it): nothing was written; try again`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([acquiring, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The parts of the engine its collections use. Writers are serialised by one mutex: a transaction
 * holds it from start to commit, a write outside a transaction holds it for that one write.
 */
export class EmbeddedCore {
  private readonly writers = new Mutex();
  private readonly currentTransaction = new AsyncLocalStorage<EmbeddedSession>();
  /** The transaction holding the writers' mutex, if any (there is at most one). */
  private running: EmbeddedSession | undefined;
  private closed = false;

  constructor(
    private readonly journal: Journal,
    private readonly transactionTimeoutMs = defaultTransactionTimeoutMs,
  ) {}

  get state() {
    return this.journal.state;
  }

  /**
   * Runs one read on the view it sees: the transaction's draft, or the committed state. A read
   * that fails inside a transaction aborts it, as on MongoDB.
   */
  read<R>(session: StoreSession | undefined, read: (view: Draft) => R): R {
    this.assertOpen();
    if (!session) return read(new Draft(this.state));
    const embedded = this.usableSession(session);
    try {
      return read(embedded.draft);
    } catch (err) {
      embedded.failure = err;
      throw err;
    }
  }

  /**
   * Runs one write: staged on the session's draft when given (a failure then poisons the
   * transaction), otherwise on a draft of its own committed right away, all-or-nothing.
   */
  async write<R>(session: StoreSession | undefined, stage: (draft: Draft) => R): Promise<R> {
    this.assertOpen();
    if (session) {
      const embedded = this.usableSession(session);
      if (embedded.readOnly) throw new TypeError("A snapshot session only reads");
      try {
        return stage(embedded.draft);
      } catch (err) {
        embedded.failure = err;
        throw err;
      }
    }
    // The mutex is released once the commit is applied, before it is durable: writes arriving
    // meanwhile stage on top of it and share its fsync (see Journal).
    const { result, durable } = await this.exclusive(async () => {
      const draft = new Draft(this.state);
      const result = stage(draft);
      return { result, durable: this.commit(draft.ops()) };
    });
    await durable;
    return result;
  }

  /** Runs a change that is not a document write (index creation) under the writers' mutex. */
  async exclusive<R>(fn: () => Promise<R>, timeoutMs = this.transactionTimeoutMs): Promise<R> {
    this.assertOpen();
    if (this.currentTransaction.getStore()?.active) {
      // The transaction holds the mutex and is waiting for this call: waiting would never end.
      throw new Error("Inside withTransaction, pass { session } to every write of the store");
    }
    const release = await acquireWithin(this.writers, timeoutMs);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** Applies `ops` to the state at once; resolves when they are durable. */
  commit(ops: JournalOp[]): Promise<void> {
    return this.journal.append(ops, () => {
      for (const op of ops) this.state.apply(op);
    });
  }

  async transaction<R>(fn: (session: StoreSession) => Promise<R>, options: TransactionOptions = {}): Promise<R> {
    const { result, durable } = await this.exclusive(async () => {
      const session = new EmbeddedSession(this, new Draft(this.state));
      // Until its commit is applied, values of sequences it staged are not handed out elsewhere.
      this.running = session;
      try {
        let result: R;
        try {
          result = await this.currentTransaction.run(session, () => fn(session as unknown as StoreSession));
        } finally {
          // Ended before the commit, so a stray late write cannot slip past the ops being committed.
          session.active = false;
        }
        if (session.failure !== undefined) throw refusals.transactionAborted(session.failure);
        return { result, durable: this.commit(session.draft.ops()) };
      } finally {
        this.running = undefined;
      }
    }, options.timeoutMs);
    await durable;
    return result;
  }

  /**
   * Reads through one view of the store while writers wait (a backup's consistent point). A write
   * started meanwhile waits for the end of the snapshot, or gives up at its timeout.
   */
  async snapshot<R>(fn: (session: StoreSession) => Promise<R>): Promise<R> {
    return this.exclusive(async () => {
      const session = new EmbeddedSession(this, new Draft(this.state), true);
      try {
        return await fn(session as unknown as StoreSession);
      } finally {
        session.active = false;
      }
    });
  }

  /**
   * With a session, the value is staged in the transaction (transactions run one at a time, so values
   * follow commit order, and a rollback gives the value back). Without one it is taken at once,
   * above any value the running transaction staged, and made durable before returning.
   */
  async nextSequence(name: string, options?: SessionOption): Promise<number> {
    this.assertOpen();
    if (options?.session) {
      const session = this.usableSession(options.session);
      if (session.readOnly) throw new TypeError("A snapshot session only reads");
      return session.draft.nextSequence(name);
    }
    // Taken synchronously, so concurrent callers never share a value.
    this.journal.assertWritable();
    const value = Math.max(this.state.sequences.get(name) ?? 0, this.running?.draft.stagedSequence(name) ?? 0) + 1;
    this.state.sequences.set(name, value);
    await this.journal.append([{ op: "sequence", name, value }], () => undefined);
    return value;
  }

  /** Durable like any write; the state keeps the larger of the current and the given value. */
  async raiseSequences(values: Record<string, number>): Promise<void> {
    const ops: JournalOp[] = Object.entries(values).map(([name, value]) => ({ op: "sequence", name, value }));
    await this.exclusive(() => this.commit(ops));
  }

  /** The sequences as the session (or, without one, the committed state) sees them. */
  sequences(session: StoreSession | undefined): Record<string, number> {
    const values = Object.fromEntries(this.state.sequences);
    if (session) {
      const draft = this.usableSession(session).draft;
      for (const name of Object.keys(values)) values[name] = Math.max(values[name]!, draft.stagedSequence(name) ?? 0);
    }
    return values;
  }

  ping(): Promise<void> {
    try {
      this.assertOpen();
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  writeFailure(): string | undefined {
    return this.journal.writeFailure();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.writers.runExclusive(async () => {
      this.closed = true;
      await this.journal.close();
    });
  }

  /** Reads go on while the journal cannot be written: writes are refused by the journal itself. */
  private assertOpen(): void {
    if (this.closed) throw new NotReady("The store is closed");
  }

  private sessionOf(session: StoreSession): EmbeddedSession {
    if (!(session instanceof EmbeddedSession) || session.owner !== this) throw new TypeError("Not a session of this store engine");
    if (!session.active) throw new Error("The transaction of this session has ended");
    return session;
  }

  /** The session, unless an earlier failure aborted its transaction: then only ending it is left. */
  private usableSession(session: StoreSession): EmbeddedSession {
    const embedded = this.sessionOf(session);
    if (embedded.failure !== undefined) throw refusals.transactionAborted(embedded.failure);
    return embedded;
  }
}
