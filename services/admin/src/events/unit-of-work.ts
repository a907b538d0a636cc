import { AsyncLocalStorage } from "node:async_hooks";
import type { StoreEngine, StoreSession } from "@vexil/store";
import type { DomainEventInput, EventDocument, EventStore } from "./event-store.js";

export interface Transaction {
  session: StoreSession;
  /** Records an event in the same write as the change it describes. */
  record(event: DomainEventInput): Promise<EventDocument>;
}

export type ChangeListener = (events: EventDocument[]) => void;

/**
 * Every admin mutation runs through here: the change and its events commit together (the outbox),
 * then listeners (the relay, the snapshot builder) hear about it.
 */
export class UnitOfWork {
  private readonly listeners: ChangeListener[] = [];
  /** The transaction of the enclosing `run`, so a unit of work started inside another joins it. */
  private readonly current = new AsyncLocalStorage<Transaction>();

  constructor(
    private readonly engine: StoreEngine,
    private readonly events: EventStore,
  ) {}

  /** The session of the unit of work this call runs in, if any: reads made inside one see its writes. */
  get session(): StoreSession | undefined {
    return this.current.getStore()?.session;
  }

  /** Returns the removal: a listener added by a start is removed by the matching stop. */
  onCommitted(listener: ChangeListener): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  /**
   * Runs `fn` in a transaction. Inside another `run` it joins that transaction: the outer one
   * commits or rolls back everything (how a change request applies many domain changes at once).
   */
  async run<R>(fn: (tx: Transaction) => Promise<R>): Promise<R> {
    const outer = this.current.getStore();
    if (outer) return fn(outer);
    let recorded: EventDocument[] = [];
    const result = await this.engine.withTransaction(async (session) => {
      // A retried transaction starts over; only the last attempt's events count.
      recorded = [];
      const tx: Transaction = {
        session,
        record: async (event) => {
          const doc = await this.events.record(event, session);
          recorded.push(doc);
          return doc;
        },
      };
      return this.current.run(tx, () => fn(tx));
    });
    if (recorded.length > 0) for (const listener of this.listeners) listener(recorded);
    return result;
  }
}
