import type { DomainEvent, IntegrationEvent, IntegrationEventState } from "@vexil/contracts";
import { DuplicateKeyError, type Collection, type StoreEngine } from "@vexil/store";

export type DeliveryState = "pending" | IntegrationEventState;

/** One (event, addon) delivery: the unit that is queued, retried and finally succeeds or fails. */
export interface DeliveryDocument {
  /** The idempotency key `<eventId>:<addonId>`; a second enqueue of the same key does nothing. */
  _id: string;
  /** Enqueue order, which is the order deliveries to one addon are made in. */
  seq: number;
  addonId: number;
  event: DomainEvent;
  state: DeliveryState;
  attempt: number;
  /** When the next attempt may run (epoch ms). */
  nextAttemptAt: number;
  /** Slack sends one request per channel: those already answered 2xx are not sent again. */
  partsDone: number[];
  createdAt: Date;
  updatedAt: Date;
}

/** One attempt, as the delivery log (Unleash's integration events) shows it. */
export interface IntegrationEventDocument {
  _id: number;
  addonId: number;
  eventId: string;
  eventType: string;
  state: IntegrationEventState;
  statusCode: number | null;
  details: string;
  attempt: number;
  idempotencyKey: string;
  event: DomainEvent;
  createdAt: Date;
}

export const idempotencyKey = (eventId: string, addonId: number) => `${eventId}:${addonId}`;
const open: DeliveryState[] = ["pending", "retrying"];

export class DeliveryStore {
  private constructor(
    private readonly engine: StoreEngine,
    private readonly deliveries: Collection<DeliveryDocument>,
    private readonly log: Collection<IntegrationEventDocument>,
  ) {}

  static async create(engine: StoreEngine): Promise<DeliveryStore> {
    const deliveries = engine.collection<DeliveryDocument>("deliveries");
    const log = engine.collection<IntegrationEventDocument>("integration_events");
    await deliveries.createIndex({ addonId: 1, state: 1, seq: 1 });
    await log.createIndex({ addonId: 1, _id: -1 });
    return new DeliveryStore(engine, deliveries, log);
  }

  /** Queues a delivery unless its key was ever queued; true when it is new. */
  async enqueue(event: DomainEvent, addonId: number, now: Date): Promise<boolean> {
    const key = idempotencyKey(event.id, addonId);
    if (await this.deliveries.findOne({ _id: key }, { projection: { _id: 1 } })) return false;
    const doc: DeliveryDocument = {
      _id: key,
      seq: await this.engine.nextSequence("deliveries"),
      addonId,
      event,
      state: "pending",
      attempt: 0,
      nextAttemptAt: now.getTime(),
      partsDone: [],
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.deliveries.insertOne(doc);
      return true;
    } catch (err) {
      if (err instanceof DuplicateKeyError) return false;
      throw err;
    }
  }

  /** The oldest unfinished delivery of an addon: its queue's head. */
  nextOpen(addonId: number): Promise<DeliveryDocument | null> {
    return this.deliveries.findOne({ addonId, state: { $in: open } }, { sort: { seq: 1 } });
  }

  /** Addons with unfinished deliveries, to resume after a restart. */
  async addonsWithOpenDeliveries(): Promise<number[]> {
    const docs = await this.deliveries.find<{ addonId: number }>({ state: { $in: open } }, { projection: { addonId: 1 } });
    return [...new Set(docs.map((d) => d.addonId))];
  }

  /** Stores an attempt's outcome and its log entry together. */
  async recordAttempt(
    delivery: DeliveryDocument,
    outcome: { state: IntegrationEventState; statusCode: number | null; details: string; nextAttemptAt: number; partsDone: number[] },
    now: Date,
  ): Promise<void> {
    const entryId = await this.engine.nextSequence("integration_events");
    await this.engine.withTransaction(async (session) => {
      await this.deliveries.updateOne(
        { _id: delivery._id },
        {
          $set: {
            state: outcome.state,
            attempt: delivery.attempt + 1,
            nextAttemptAt: outcome.nextAttemptAt,
            partsDone: outcome.partsDone,
            updatedAt: now,
          },
        },
        { session },
      );
      await this.log.insertOne(
        {
          _id: entryId,
          addonId: delivery.addonId,
          eventId: delivery.event.id,
          eventType: delivery.event.type,
          state: outcome.state,
          statusCode: outcome.statusCode,
          details: outcome.details,
          attempt: delivery.attempt + 1,
          idempotencyKey: delivery._id,
          event: delivery.event,
          createdAt: now,
        },
        { session },
      );
    });
  }

  /** The delivery log of an addon, newest first, in Unleash's integration-event shape. */
  async logOf(addonId: number, { limit, offset }: { limit: number; offset: number }): Promise<IntegrationEvent[]> {
    const docs = await this.log.find({ addonId }, { sort: { _id: -1 }, skip: offset, limit });
    return docs.map((doc) => ({
      id: String(doc._id),
      integrationId: doc.addonId,
      createdAt: doc.createdAt.toISOString(),
      state: doc.state,
      stateDetails: doc.details,
      event: doc.event,
      details: {
        eventId: doc.eventId,
        eventType: doc.eventType,
        statusCode: doc.statusCode,
        attempt: doc.attempt,
        idempotencyKey: doc.idempotencyKey,
      },
    }));
  }
}
