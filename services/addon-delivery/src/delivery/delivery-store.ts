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
  /** The replica that may attempt this delivery now, and until when (epoch ms); null when free. */
  claimedBy: string | null;
  claimedUntil: number;
  createdAt: Date;
  updatedAt: Date;
}

/** Which replica works an addon's queue, and until when (epoch ms) unless it renews. */
export interface AddonLeaseDocument {
  _id: number;
  holder: string;
  until: number;
}

/** A claim attempt: the fresh delivery to send, or how long another replica holds it (0: not open any more, look again). */
export type ClaimResult = { delivery: DeliveryDocument } | { busyUntil: number };

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
const finished: DeliveryState[] = ["success", "failed"];

export class DeliveryStore {
  private constructor(
    private readonly engine: StoreEngine,
    private readonly deliveries: Collection<DeliveryDocument>,
    private readonly log: Collection<IntegrationEventDocument>,
    private readonly leases: Collection<AddonLeaseDocument>,
  ) {}

  static async create(engine: StoreEngine): Promise<DeliveryStore> {
    const deliveries = engine.collection<DeliveryDocument>("deliveries");
    const log = engine.collection<IntegrationEventDocument>("integration_events");
    // An addon's queue head; the sweeper's look for open queues on every replica each lease period
    // (answered from the index alone); retention of finished deliveries and of the log, each by the
    // date it cuts on as the index's first field, which the embedded engine reads ranges through too.
    await deliveries.createIndex({ addonId: 1, state: 1, seq: 1 });
    await deliveries.createIndex({ state: 1, addonId: 1 });
    await deliveries.createIndex({ updatedAt: 1 });
    await log.createIndex({ addonId: 1, _id: -1 });
    await log.createIndex({ createdAt: 1 });
    return new DeliveryStore(engine, deliveries, log, engine.collection<AddonLeaseDocument>("delivery_leases"));
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
      claimedBy: null,
      claimedUntil: 0,
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

  /** Deliveries not finished yet (pending or waiting for a retry), across all addons. */
  countOpen(): Promise<number> {
    return this.deliveries.countDocuments({ state: { $in: open } });
  }

  /** Addons with unfinished deliveries, to resume after a restart. */
  async addonsWithOpenDeliveries(): Promise<number[]> {
    const docs = await this.deliveries.find<{ addonId: number }>({ state: { $in: open } }, { projection: { _id: 0, addonId: 1 } });
    return [...new Set(docs.map((d) => d.addonId))];
  }

  /**
   * Deletes deliveries finished before `before` and log entries written before it; open ones stay
   * whatever their age. A finished delivery's key goes with it: an event redelivered by the stream
   * after that (a reset consumer) would be delivered again.
   */
  async prune(before: Date): Promise<{ deliveries: number; log: number }> {
    const [deliveries, log] = await Promise.all([
      this.deliveries.deleteMany({ state: { $in: finished }, updatedAt: { $lt: before } }),
      this.log.deleteMany({ createdAt: { $lt: before } }),
    ]);
    return { deliveries: deliveries.deletedCount, log: log.deletedCount };
  }

  /**
   * Takes or renews the lease on an addon's queue: true when `holder` has it until `now + ttlMs`.
   * A lease held by another replica is taken only once it has expired (that replica stopped renewing).
   */
  async acquireLease(addonId: number, holder: string, now: Date, ttlMs: number): Promise<boolean> {
    const at = now.getTime();
    const lease = { holder, until: at + ttlMs };
    const renewed = await this.leases.updateOne({ _id: addonId, $or: [{ holder }, { until: { $lte: at } }] }, { $set: lease });
    if (renewed.matchedCount === 1) return true;
    try {
      await this.leases.insertOne({ _id: addonId, ...lease });
      return true;
    } catch (err) {
      // Another replica holds an unexpired lease (or took it in between).
      if (err instanceof DuplicateKeyError) return false;
      throw err;
    }
  }

  /** Gives up the lease, if `holder` still has it, so another replica can take over at once. */
  async releaseLease(addonId: number, holder: string): Promise<void> {
    await this.leases.deleteOne({ _id: addonId, holder });
  }

  /**
   * Claims a delivery for one attempt, until `now + ttlMs`. It must still be open, at the attempt
   * the caller read (no other replica recorded one since), and unclaimed, claimed by `holder`, or
   * its claim expired.
   */
  async claim(delivery: DeliveryDocument, holder: string, now: Date, ttlMs: number): Promise<ClaimResult> {
    const at = now.getTime();
    const claimed = await this.deliveries.findOneAndUpdate(
      {
        _id: delivery._id,
        state: { $in: open },
        attempt: delivery.attempt,
        $or: [{ claimedBy: null }, { claimedBy: holder }, { claimedUntil: { $lte: at } }],
      },
      { $set: { claimedBy: holder, claimedUntil: at + ttlMs } },
      { returnDocument: "after" },
    );
    if (claimed) return { delivery: claimed };
    const current = await this.deliveries.findOne({ _id: delivery._id });
    const heldElsewhere = current && open.includes(current.state) && current.attempt === delivery.attempt && current.claimedBy !== holder;
    return { busyUntil: heldElsewhere ? current.claimedUntil : 0 };
  }

  /**
   * Stores an attempt's outcome and its log entry together, and frees the claim. Only the claim's
   * holder may: false (nothing written) when the claim expired and another replica took it.
   */
  async recordAttempt(
    delivery: DeliveryDocument,
    holder: string,
    outcome: { state: IntegrationEventState; statusCode: number | null; details: string; nextAttemptAt: number; partsDone: number[] },
    now: Date,
  ): Promise<boolean> {
    const entryId = await this.engine.nextSequence("integration_events");
    return this.engine.withTransaction(async (session) => {
      const updated = await this.deliveries.updateOne(
        { _id: delivery._id, claimedBy: holder, attempt: delivery.attempt },
        {
          $set: {
            state: outcome.state,
            attempt: delivery.attempt + 1,
            nextAttemptAt: outcome.nextAttemptAt,
            partsDone: outcome.partsDone,
            claimedBy: null,
            claimedUntil: 0,
            updatedAt: now,
          },
        },
        { session },
      );
      if (updated.matchedCount === 0) return false;
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
      return true;
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
