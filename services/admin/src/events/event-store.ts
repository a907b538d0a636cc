import { topics, type EventType } from "@vexil/contracts";
import type { OutboxEvent, OutboxSource } from "@vexil/bus";
import type { Collection, StoreEngine, StoreSession } from "@vexil/store";
import type { Actor } from "../access/actor.js";

export interface EventTag {
  type: string;
  value: string;
}

/** What a mutation says about itself; the store adds the id, time and outbox state. */
export interface DomainEventInput {
  type: EventType;
  actor: Actor;
  project?: string | null;
  environment?: string | null;
  featureName?: string | null;
  data?: unknown;
  preData?: unknown;
  tags?: EventTag[];
}

export interface EventDocument {
  _id: number;
  type: EventType;
  createdAt: Date;
  createdBy: string;
  createdByUserId: number;
  project: string | null;
  environment: string | null;
  featureName: string | null;
  data: unknown;
  preData: unknown;
  tags: EventTag[];
}

/**
 * An event waiting to be published, kept apart from the log so the relay reads a collection that
 * holds only what is unsent, however long the log grows.
 */
interface OutboxDocument {
  _id: number;
  payload: ReturnType<typeof toDomainEvent>;
}

export interface EventQuery {
  project?: string;
  /** Projects whose events are left out (private projects the caller is no member of). */
  hiddenProjects?: readonly string[];
  featureName?: string;
  type?: EventType;
  createdBy?: string;
  /** Inclusive bounds on createdAt. */
  from?: Date;
  to?: Date;
  offset?: number;
  limit?: number;
}

/** The event log and its outbox, both written in the same transaction as the change. */
export class EventStore implements OutboxSource {
  constructor(
    private readonly engine: StoreEngine,
    private readonly events: Collection<EventDocument>,
    private readonly outbox: Collection<OutboxDocument>,
    private readonly clock: () => Date,
  ) {}

  static async create(engine: StoreEngine, clock: () => Date = () => new Date()): Promise<EventStore> {
    const events = engine.collection<EventDocument>("events");
    // One per filter of the event log and search, newest first; createdAt also serves retention.
    await events.createIndex({ featureName: 1, _id: -1 });
    await events.createIndex({ project: 1, _id: -1 });
    await events.createIndex({ type: 1, _id: -1 });
    await events.createIndex({ createdBy: 1, _id: -1 });
    await events.createIndex({ createdAt: 1 });
    return new EventStore(engine, events, engine.collection<OutboxDocument>("event_outbox"), clock);
  }

  /**
   * The id is taken inside the transaction: concurrent transactions recording events conflict on
   * the counter and one runs again after the other commits, so ids follow commit order. Whoever
   * reads events by id (the outbox relay, the snapshot publisher) never sees an id before a lower
   * one has committed, and a rolled-back change leaves no gap.
   */
  async record(input: DomainEventInput, session: StoreSession): Promise<EventDocument> {
    const doc: EventDocument = {
      _id: await this.engine.nextSequence("events", { session }),
      type: input.type,
      createdAt: this.clock(),
      createdBy: input.actor.name,
      createdByUserId: input.actor.userId,
      project: input.project ?? null,
      environment: input.environment ?? null,
      featureName: input.featureName ?? null,
      data: input.data ?? null,
      preData: input.preData ?? null,
      tags: input.tags ?? [],
    };
    await this.events.insertOne(doc, { session });
    await this.outbox.insertOne({ _id: doc._id, payload: toDomainEvent(doc) }, { session });
    return doc;
  }

  /** Newest first. */
  async list(query: EventQuery = {}): Promise<{ events: EventDocument[]; total: number }> {
    const filter: Record<string, unknown> = {};
    const hidden = query.hiddenProjects ?? [];
    if (hidden.length > 0) filter.project = { ...(query.project ? { $eq: query.project } : {}), $nin: hidden };
    else if (query.project) filter.project = query.project;
    if (query.featureName) filter.featureName = query.featureName;
    if (query.type) filter.type = query.type;
    if (query.createdBy) filter.createdBy = query.createdBy;
    if (query.from || query.to) {
      filter.createdAt = { ...(query.from ? { $gte: query.from } : {}), ...(query.to ? { $lte: query.to } : {}) };
    }
    const [events, total] = await Promise.all([
      this.events.find(filter, { sort: { _id: -1 }, skip: query.offset ?? 0, limit: query.limit ?? 100 }),
      // The whole log's size comes from the collection's metadata; a filtered total from its index.
      Object.keys(filter).length === 0 ? this.events.estimatedDocumentCount() : this.events.countDocuments(filter),
    ]);
    return { events, total };
  }

  /*
   * The reads below hand event ids to the world (a snapshot revision, a stream's event id, a
   * message id JetStream de-duplicates on) and so read only what a majority of the replica set
   * holds: an event a failover rolls back is never seen, and the id it had, taken again by the
   * next event, names one event only.
   */

  /** Id of the newest event; 0 when there is none. */
  async latestId(): Promise<number> {
    const newest = await this.events.findOne<Pick<EventDocument, "_id">>(
      {},
      { sort: { _id: -1 }, projection: { _id: 1 }, readConcern: "majority" },
    );
    return newest?._id ?? 0;
  }

  /** Up to `limit` events recorded after the event `after`, oldest first (a live stream resuming). */
  since(after: number, limit: number): Promise<EventDocument[]> {
    return this.events.find({ _id: { $gt: after } }, { sort: { _id: 1 }, limit, readConcern: "majority" });
  }

  /** The events with ids in (after, upTo], oldest first, with what the snapshot publisher needs of them. */
  between(after: number, upTo: number): Promise<Array<Pick<EventDocument, "_id" | "type" | "featureName">>> {
    return this.events.find(
      { _id: { $gt: after, $lte: upTo } },
      { sort: { _id: 1 }, projection: { _id: 1, type: 1, featureName: 1 }, readConcern: "majority" },
    );
  }

  /**
   * Deletes events recorded before `before` (retention); the outbox holds its own copies until
   * sent. The newest event always stays: its id is the snapshot revision a restart starts from.
   */
  async prune(before: Date): Promise<number> {
    const newest = await this.latestId();
    return (await this.events.deleteMany({ createdAt: { $lt: before }, _id: { $lt: newest } })).deletedCount;
  }

  async pending(limit: number): Promise<OutboxEvent[]> {
    const docs = await this.outbox.find({}, { sort: { _id: 1 }, limit, readConcern: "majority" });
    return docs.map((doc) => ({ id: String(doc._id), topic: topics.domainEvents.of(doc.payload.type), payload: doc.payload }));
  }

  /** Events waiting in the outbox to be published. */
  outboxBacklog(): Promise<number> {
    return this.outbox.countDocuments({});
  }

  async markPublished(ids: string[]): Promise<void> {
    await this.outbox.deleteMany({ _id: { $in: ids.map(Number) } });
  }
}

/** The published form: what addons, signals and the event API see. */
export function toDomainEvent(doc: EventDocument) {
  return {
    id: String(doc._id),
    type: doc.type,
    createdAt: doc.createdAt.toISOString(),
    createdBy: doc.createdBy,
    createdByUserId: doc.createdByUserId,
    project: doc.project,
    environment: doc.environment,
    featureName: doc.featureName,
    data: doc.data,
    preData: doc.preData,
    tags: doc.tags,
  };
}
