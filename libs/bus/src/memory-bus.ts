import {
  type Transport,
  type BusLogger,
  BusRequestError,
  type ConsumeOptions,
  type Consumer,
  type EventHandler,
  type EventMessage,
  type NotificationHandler,
  type PublishEventResult,
  type ReplyEnvelope,
  type ReplyHandler,
  backoffDelay,
  defaultRequestTimeoutMs,
  resolveConsumeOptions,
  runReplyHandler,
  unwrapReply,
} from "./bus.js";
import { assertSubject, subjectMatches } from "./subjects.js";
import { topicBus, type Bus } from "./topic.js";

export interface MemoryBusOptions {
  logger?: BusLogger;
  /** Same meaning as the JetStream duplicate window. Default 2 minutes. */
  duplicateWindowMs?: number;
  /** When given, `publishEvent` rejects subjects outside them, as JetStream does. */
  streamSubjects?: string[];
}

interface StoredEvent {
  seq: number;
  subject: string;
  json: string;
  msgId: string;
}

interface PendingDelivery {
  deliveryCount: number;
  /** Epoch ms when it may be redelivered; null while a handler holds it. */
  readyAt: number | null;
}

interface ActiveConsumer {
  handler: EventHandler;
  options: ReturnType<typeof resolveConsumeOptions> & Pick<ConsumeOptions, "onDeadLetter">;
  inFlight: Set<Promise<void>>;
}

/** Durable state outlives the consumer that reads it, as a JetStream durable consumer does. */
interface DurableState {
  filter: string;
  /** Sequence of the next event not yet delivered to this durable. */
  cursor: number;
  pending: Map<number, PendingDelivery>;
  active: ActiveConsumer | null;
  timer: ReturnType<typeof setTimeout> | null;
}

const silentLogger: BusLogger = { info() {}, warn() {}, error() {}, debug() {} };

/**
 * In-process bus with the semantics of the NATS one: JSON on the wire (payloads are copied),
 * asynchronous delivery, msgId dedupe, durable consumers with one message in flight by default,
 * at-least-once redelivery with backoff and dead letters. Unlike JetStream it does not redeliver
 * a message whose handler never settles (no ack-wait timer) and it allows one active consumer per
 * durable, which is all a single process needs.
 */
export function createMemoryBus(options: MemoryBusOptions = {}): Bus {
  return topicBus(createMemoryTransport(options), options.logger ?? silentLogger);
}

/** The raw in-process transport behind `createMemoryBus`. */
export function createMemoryTransport(options: MemoryBusOptions = {}): Transport {
  const logger = options.logger ?? silentLogger;
  const duplicateWindowMs = options.duplicateWindowMs ?? 120_000;
  const subscriptions = new Set<{ pattern: string; handler: NotificationHandler }>();
  const responders: Array<{ pattern: string; handler: ReplyHandler }> = [];
  const events: StoredEvent[] = [];
  const seenMsgIds = new Map<string, { seq: number; at: number }>();
  const durables = new Map<string, DurableState>();
  let nextResponder = 0;
  let closed = false;

  const assertOpen = () => {
    if (closed) throw new Error("bus is closed");
  };

  function pump(durable: DurableState): void {
    const active = durable.active;
    if (!active) return;
    while (active.inFlight.size < active.options.concurrency) {
      const seq = nextDeliverable(durable, active.options.concurrency);
      if (seq === undefined) break;
      deliver(durable, active, seq);
    }
    scheduleRedelivery(durable);
  }

  function nextDeliverable(durable: DurableState, maxPending: number): number | undefined {
    const now = Date.now();
    const ready = [...durable.pending].filter(([, p]) => p.readyAt !== null && p.readyAt <= now).map(([seq]) => seq);
    if (ready.length > 0) return Math.min(...ready);
    // Like max_ack_pending: a message waiting for redelivery still holds its slot, which keeps order.
    if (durable.pending.size >= maxPending) return undefined;
    while (durable.cursor <= events.length) {
      const event = events[durable.cursor - 1];
      durable.cursor++;
      if (subjectMatches(durable.filter, event.subject)) {
        durable.pending.set(event.seq, { deliveryCount: 0, readyAt: now });
        return event.seq;
      }
    }
    return undefined;
  }

  function scheduleRedelivery(durable: DurableState): void {
    if (durable.timer) clearTimeout(durable.timer);
    durable.timer = null;
    if (!durable.active) return;
    const waiting = [...durable.pending.values()].map((p) => p.readyAt).filter((at): at is number => at !== null);
    if (waiting.length === 0) return;
    const delay = Math.max(0, Math.min(...waiting) - Date.now());
    durable.timer = setTimeout(() => {
      durable.timer = null;
      pump(durable);
    }, delay);
  }

  function deliver(durable: DurableState, active: ActiveConsumer, seq: number): void {
    const entry = durable.pending.get(seq)!;
    const event = events[seq - 1];
    entry.deliveryCount++;
    entry.readyAt = null;
    const msg: EventMessage = {
      subject: event.subject,
      data: JSON.parse(event.json),
      seq,
      msgId: event.msgId,
      deliveryCount: entry.deliveryCount,
    };
    const run = (async () => {
      try {
        await active.handler(msg);
        durable.pending.delete(seq);
      } catch (err) {
        await settleFailure(durable, active, msg, entry, err);
      }
    })();
    active.inFlight.add(run);
    void run.finally(() => {
      active.inFlight.delete(run);
      pump(durable);
    });
  }

  async function settleFailure(durable: DurableState, active: ActiveConsumer, msg: EventMessage, entry: PendingDelivery, err: unknown) {
    const { maxDeliver, backoffMs, onDeadLetter } = active.options;
    if (msg.deliveryCount >= maxDeliver) {
      try {
        await onDeadLetter?.(msg, err);
        durable.pending.delete(msg.seq);
        logger.warn({ err, subject: msg.subject, seq: msg.seq, deliveryCount: msg.deliveryCount }, "event dead-lettered");
        return;
      } catch (deadLetterErr) {
        logger.error({ err: deadLetterErr, seq: msg.seq }, "dead-letter callback failed; event will be redelivered");
      }
    }
    const delay = backoffDelay(backoffMs, msg.deliveryCount);
    logger.debug({ err, subject: msg.subject, seq: msg.seq, delay }, "event handler failed; redelivering");
    entry.readyAt = Date.now() + delay;
  }

  return {
    publish(subject, payload) {
      assertOpen();
      assertSubject(subject, { wildcards: false });
      const json = encode(payload);
      for (const sub of subscriptions) {
        if (!subjectMatches(sub.pattern, subject)) continue;
        queueMicrotask(() => {
          if (!subscriptions.has(sub)) return;
          Promise.resolve()
            .then(() => sub.handler(JSON.parse(json), subject))
            .catch((err) => logger.error({ err, subject }, "notification handler failed"));
        });
      }
    },

    subscribe(pattern, handler) {
      assertOpen();
      assertSubject(pattern, { wildcards: true });
      const sub = { pattern, handler };
      subscriptions.add(sub);
      return { unsubscribe: () => void subscriptions.delete(sub) };
    },

    async request(subject, payload, { timeoutMs = defaultRequestTimeoutMs } = {}) {
      assertOpen();
      assertSubject(subject, { wildcards: false });
      const json = encode(payload);
      const matching = responders.filter((r) => subjectMatches(r.pattern, subject));
      if (matching.length === 0) throw new BusRequestError("no-responders", `no responders for ${subject}`);
      const responder = matching[nextResponder++ % matching.length];
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new BusRequestError("timeout", `request to ${subject} timed out after ${timeoutMs} ms`)),
          timeoutMs,
        );
      });
      try {
        const envelope = await Promise.race([runReplyHandler(responder.handler, JSON.parse(json), subject), timeout]);
        return unwrapReply(JSON.parse(JSON.stringify(envelope)) as ReplyEnvelope, subject);
      } finally {
        clearTimeout(timer);
      }
    },

    reply(pattern, handler) {
      assertOpen();
      assertSubject(pattern, { wildcards: true });
      const responder = { pattern, handler };
      responders.push(responder);
      return {
        unsubscribe: () => {
          const i = responders.indexOf(responder);
          if (i >= 0) responders.splice(i, 1);
        },
      };
    },

    async publishEvent(subject, payload, { msgId }): Promise<PublishEventResult> {
      assertOpen();
      assertSubject(subject, { wildcards: false });
      if (typeof msgId !== "string" || msgId.length === 0) throw new TypeError("publishEvent needs a non-empty msgId");
      if (options.streamSubjects && !options.streamSubjects.some((p) => subjectMatches(p, subject))) {
        throw new Error(`no stream matches subject ${subject}`);
      }
      const json = encode(payload);
      const now = Date.now();
      // Insertion order is publish order, so the expired ids are at the front.
      for (const [id, seen] of seenMsgIds) {
        if (now - seen.at < duplicateWindowMs) break;
        seenMsgIds.delete(id);
      }
      const seen = seenMsgIds.get(msgId);
      if (seen) return { seq: seen.seq, duplicate: true };
      const seq = events.length + 1;
      events.push({ seq, subject, json, msgId });
      seenMsgIds.set(msgId, { seq, at: now });
      for (const durable of durables.values()) pump(durable);
      return { seq, duplicate: false };
    },

    async consume(durableName, filterSubject, handler, consumeOptions): Promise<Consumer> {
      assertOpen();
      assertSubject(filterSubject, { wildcards: true });
      if (!durableName) throw new TypeError("consume needs a durable name");
      const resolved = { ...resolveConsumeOptions(consumeOptions), onDeadLetter: consumeOptions?.onDeadLetter };
      let durable = durables.get(durableName);
      if (!durable) {
        durable = { filter: filterSubject, cursor: 1, pending: new Map(), active: null, timer: null };
        durables.set(durableName, durable);
      }
      if (durable.filter !== filterSubject) {
        throw new Error(`durable ${durableName} filters ${durable.filter}, not ${filterSubject}`);
      }
      if (durable.active) throw new Error(`durable ${durableName} already has an active consumer`);
      const active: ActiveConsumer = { handler, options: resolved, inFlight: new Set() };
      durable.active = active;
      const state = durable;
      // Start on the next tick so a caller can finish wiring before the first message arrives.
      queueMicrotask(() => pump(state));
      return {
        async stop() {
          if (state.active === active) {
            state.active = null;
            scheduleRedelivery(state);
          }
          await Promise.allSettled([...active.inFlight]);
        },
      };
    },

    async ping() {
      assertOpen();
    },

    // In one process there is no connection to lose.
    onReconnect: () => ({ unsubscribe() {} }),

    async close() {
      if (closed) return;
      closed = true;
      subscriptions.clear();
      responders.length = 0;
      const inFlight: Promise<void>[] = [];
      for (const durable of durables.values()) {
        if (durable.active) inFlight.push(...durable.active.inFlight);
        durable.active = null;
        scheduleRedelivery(durable);
      }
      await Promise.allSettled(inFlight);
    },
  };
}

function encode(payload: unknown): string {
  return JSON.stringify(payload ?? null);
}
