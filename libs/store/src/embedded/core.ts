import { AsyncLocalStorage } from "node:async_hooks";
import { Mutex } from "async-mutex";
import { NotReady } from "@vexil/errors";
import type { SessionOption, StoreSession } from "../collection.js";
import type { Journal } from "./journal.js";
import { Draft, type JournalOp } from "./state.js";

/** The handle `withTransaction` passes to its callback: a draft that commits when the callback resolves. */
export class EmbeddedSession {
  active = true;
  /** Set by a failed write: like MongoDB, the transaction can then only abort. */
  failure: unknown = undefined;
  constructor(
    readonly owner: EmbeddedCore,
    readonly draft: Draft,
  ) {}
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

  constructor(private readonly journal: Journal) {}

  get state() {
    return this.journal.state;
  }

  /** The view a read sees: the transaction's draft, or the committed state. */
  reader(session: StoreSession | undefined): Draft {
    this.assertOpen();
    return session ? this.sessionOf(session).draft : new Draft(this.state);
  }

  /**
   * Runs one write: staged on the session's draft when given (a failure then poisons the
   * transaction), otherwise on a draft of its own committed right away, all-or-nothing.
   */
  async write<R>(session: StoreSession | undefined, stage: (draft: Draft) => R): Promise<R> {
    this.assertOpen();
    if (session) {
      const embedded = this.sessionOf(session);
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
  exclusive<R>(fn: () => Promise<R>): Promise<R> {
    this.assertOpen();
    if (this.currentTransaction.getStore()?.active) {
      // The transaction holds the mutex and is waiting for this call: waiting would never end.
      throw new Error("Inside withTransaction, pass { session } to every write of the store");
    }
    return this.writers.runExclusive(fn);
  }

  /** Applies `ops` to the state at once; resolves when they are durable. */
  commit(ops: JournalOp[]): Promise<void> {
    return this.journal.append(ops, () => {
      for (const op of ops) this.state.apply(op);
    });
  }

  async transaction<R>(fn: (session: StoreSession) => Promise<R>): Promise<R> {
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
        if (session.failure !== undefined) {
          throw new Error("The transaction was aborted by an earlier failed write", { cause: session.failure });
        }
        return { result, durable: this.commit(session.draft.ops()) };
      } finally {
        this.running = undefined;
      }
    });
    await durable;
    return result;
  }

  /**
   * With a session, the value is staged in the transaction (transactions run one at a time, so values
   * follow commit order, and a rollback gives the value back). Without one it is taken at once,
   * above any value the running transaction staged, and made durable before returning.
   */
  async nextSequence(name: string, options?: SessionOption): Promise<number> {
    this.assertOpen();
    if (options?.session) return this.sessionOf(options.session).draft.nextSequence(name);
    // Taken synchronously, so concurrent callers never share a value.
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

  ping(): Promise<void> {
    try {
      this.assertOpen();
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.writers.runExclusive(async () => {
      this.closed = true;
      await this.journal.close();
    });
  }

  private assertOpen(): void {
    if (this.closed) throw new NotReady("The store is closed");
    this.journal.assertHealthy();
  }

  private sessionOf(session: StoreSession): EmbeddedSession {
    if (!(session instanceof EmbeddedSession) || session.owner !== this) throw new TypeError("Not a session of this store engine");
    if (!session.active) throw new Error("The transaction of this session has ended");
    return session;
  }
}
