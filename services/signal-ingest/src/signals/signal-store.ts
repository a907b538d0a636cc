import type { OutboxEvent, OutboxSource } from "@vexil/bus";
import { topics, type ReceivedSignal, type SignalReceived } from "@vexil/contracts";
import type { Collection, StoreEngine } from "@vexil/store";

export interface SignalDocument {
  _id: number;
  endpointId: number;
  endpointName: string;
  tokenId: number;
  tokenName: string;
  payload: unknown;
  createdAt: Date;
  /** Outbox state: false until announced on `signals.received`. */
  announced: boolean;
}

export interface SignalStore extends OutboxSource {
  nextId(): Promise<number>;
  insert(doc: SignalDocument): Promise<void>;
  /** Newest first. */
  list(endpointId: number, page: { limit: number; offset: number }): Promise<ReceivedSignal[]>;
  /** Deletes the announced signals received before `before` (one not announced yet stays); how many went. */
  prune(before: Date): Promise<number>;
}

export function toAnnouncement(doc: SignalDocument): SignalReceived {
  return {
    endpointId: doc.endpointId,
    endpointName: doc.endpointName,
    signalId: doc._id,
    source: doc.tokenName,
    payload: doc.payload,
    createdAt: doc.createdAt.toISOString(),
  };
}

/**
 * Received signals, which signal-ingest owns. The collection is also the outbox of the
 * announcements: a stored signal is announced even if the process dies right after storing it.
 */
export async function createSignalStore(engine: StoreEngine): Promise<SignalStore> {
  const signals: Collection<SignalDocument> = engine.collection("signals");
  await signals.createIndex({ endpointId: 1, _id: -1 });
  await signals.createIndex({ announced: 1, _id: 1 });
  // Retention: the sweep reads only the signals older than its cutoff, on either engine.
  await signals.createIndex({ createdAt: 1 });
  return {
    nextId: () => engine.nextSequence("signals"),
    async insert(doc) {
      await signals.insertOne(doc);
    },
    async list(endpointId, { limit, offset }) {
      const docs = await signals.find({ endpointId }, { sort: { _id: -1 }, skip: offset, limit });
      return docs.map((doc) => ({
        id: doc._id,
        source: "signal-endpoint" as const,
        sourceId: doc.endpointId,
        createdAt: doc.createdAt.toISOString(),
        tokenName: doc.tokenName,
        payload: doc.payload,
      }));
    },
    async prune(before) {
      return (await signals.deleteMany({ createdAt: { $lt: before }, announced: true })).deletedCount;
    },
    async pending(limit): Promise<OutboxEvent[]> {
      // Majority: a signal a failover rolls back is never announced, so its id, taken again, names one signal.
      const docs = await signals.find({ announced: false }, { sort: { _id: 1 }, limit, readConcern: "majority" });
      return docs.map((doc) => ({ id: `signal-${doc._id}`, topic: topics.signalsReceived, payload: toAnnouncement(doc) }));
    },
    async markPublished(ids) {
      const numeric = ids.map((id) => Number(id.replace(/^signal-/, "")));
      await signals.updateMany({ _id: { $in: numeric } }, { $set: { announced: true } });
    },
  };
}
