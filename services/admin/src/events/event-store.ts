import type { EventType } from "@vexil/contracts";
import type { OutboxEvent, OutboxSource } from "@vexil/bus";
import type { Collection, StoreEngine, StoreSession } from "@vexil/store";
import type { Actor } from "../access/access-service.js";

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
  subject: string;
  payload: ReturnType<typeof toDomainEvent>;
}

export interface EventQuery {
  project?: string;
  featureName?: string;
  type?: EventType;
  createdBy?: string;
  /** Inclusive bounds on createdAt. */
  from?: Date;
  to?: Date;
  offset?: number;
  limit?: number;
}

export const eventSubject = (type: string) => `events.${type}`;

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
    await events.createIndex({ featureName: 1, _id: -1 });
    await events.createIndex({ project: 1, _id: -1 });
    return new EventStore(engine, events, engine.collection<OutboxDocument>("event_outbox"), clock);
  }

  async record(input: DomainEventInput, session: StoreSession): Promise<EventDocument> {
    const doc: EventDocument = {
      _id: await this.engine.nextSequence("events"),
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
    await this.outbox.insertOne({ _id: doc._id, subject: eventSubject(doc.type), payload: toDomainEvent(doc) }, { session });
    return doc;
  }

  /** Newest first. */
  async list(query: EventQuery = {}): Promise<{ events: EventDocument[]; total: number }> {
    const filter: Record<string, unknown> = {};
    if (query.project) filter.project = query.project;
    if (query.featureName) filter.featureName = query.featureName;
    if (query.type) filter.type = query.type;
    if (query.createdBy) filter.createdBy = query.createdBy;
    if (query.from || query.to) {
      filter.createdAt = { ...(query.from ? { $gte: query.from } : {}), ...(query.to ? { $lte: query.to } : {}) };
    }
    const [events, total] = await Promise.all([
      this.events.find(filter, { sort: { _id: -1 }, skip: query.offset ?? 0, limit: query.limit ?? 100 }),
      this.events.countDocuments(filter),
    ]);
    return { events, total };
  }

  async pending(limit: number): Promise<OutboxEvent[]> {
    const docs = await this.outbox.find({}, { sort: { _id: 1 }, limit });
    return docs.map((doc) => ({ id: String(doc._id), subject: doc.subject, payload: doc.payload }));
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
