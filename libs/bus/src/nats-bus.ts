import {
  AckPolicy,
  DeliverPolicy,
  ErrorCode,
  type ConsumerMessages,
  type JetStreamManager,
  type JsMsg,
  type NatsConnection,
  NatsError,
  StorageType,
  connect,
  nanos,
} from "nats";
import {
  type Transport,
  type BusLogger,
  BusRequestError,
  type ConsumeOptions,
  type Consumer,
  type EventHandler,
  type EventMessage,
  type ReplyEnvelope,
  backoffDelay,
  defaultRequestTimeoutMs,
  resolveConsumeOptions,
  runReplyHandler,
  unwrapReply,
} from "./bus.js";
import { deferredTransport } from "./deferred-transport.js";
import { assertSubject } from "./subjects.js";
import { topicBus, type Bus } from "./topic.js";

export interface NatsBusOptions {
  servers: string | string[];
  /** Credentials, when the server requires them: a user and password, or a token alone. */
  user?: string;
  pass?: string;
  token?: string;
  /** JetStream stream holding the durable events; created (or widened) on start. */
  streamName: string;
  streamSubjects: string[];
  logger: BusLogger;
  /** Connection name shown in the server's monitoring. */
  name?: string;
  /** How long JetStream remembers a msgId for dedupe. Default 2 minutes. */
  duplicateWindowMs?: number;
  /** Copies of the stream kept by a NATS cluster (applies when the stream is created). Default 1. */
  streamReplicas?: number;
  /** Wait between reconnect attempts (jittered); attempts never stop. Default 1000 ms. */
  reconnectWaitMs?: number;
}

/** JetStream API error codes (nats-server `jserrors`). */
const streamNotFound = 10059;
const consumerNotFound = 10014;

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const encode = (payload: unknown) => encoder.encode(JSON.stringify(payload ?? null));

export async function createNatsBus(options: NatsBusOptions): Promise<Bus> {
  return topicBus(await createNatsTransport(options), options.logger);
}

/**
 * The NATS bus, connected when the broker answers; when it does not, a bus usable at once all the
 * same, which connects in the background for as long as it takes and behaves meanwhile as during an
 * outage (see `deferredTransport`). A process so starts and serves what it can without NATS.
 */
export async function connectNatsBus(options: NatsBusOptions): Promise<Bus> {
  try {
    return await createNatsBus(options);
  } catch (err) {
    return topicBus(
      deferredTransport(() => createNatsTransport(options), options.logger, { firstError: err }),
      options.logger,
    );
  }
}

/** The raw NATS transport behind `createNatsBus`. */
export async function createNatsTransport(options: NatsBusOptions): Promise<Transport> {
  const { streamName, streamSubjects, logger } = options;
  if (!streamName) throw new TypeError("streamName is required");
  if (streamSubjects.length === 0) throw new TypeError("streamSubjects must name at least one subject");
  streamSubjects.forEach((s) => assertSubject(s, { wildcards: true }));

  const nc = await connect({
    servers: options.servers,
    user: options.user,
    pass: options.pass,
    token: options.token,
    name: options.name,
    // A broker outage of any length is waited out: the default gives up after ten attempts.
    maxReconnectAttempts: -1,
    reconnectTimeWait: options.reconnectWaitMs ?? 1000,
    // A broker that stops answering without closing the socket is noticed within about 15 s.
    pingInterval: 5000,
    maxPingOut: 3,
  });
  try {
    const jsm = await nc.jetstreamManager();
    await ensureStream(jsm, streamName, streamSubjects, options.duplicateWindowMs ?? 120_000, options.streamReplicas ?? 1);
    return natsBus(nc, jsm, streamName, logger, watchConnection(nc, logger));
  } catch (err) {
    await nc.close();
    throw err;
  }
}

async function ensureStream(jsm: JetStreamManager, name: string, subjects: string[], duplicateWindowMs: number, replicas: number) {
  try {
    const info = await jsm.streams.info(name);
    const missing = subjects.filter((s) => !info.config.subjects.includes(s));
    if (missing.length > 0) await jsm.streams.update(name, { ...info.config, subjects: [...info.config.subjects, ...missing] });
  } catch (err) {
    if (!isApiError(err, streamNotFound)) throw err;
    await jsm.streams.add({
      name,
      subjects,
      storage: StorageType.File,
      duplicate_window: nanos(duplicateWindowMs),
      num_replicas: replicas,
    });
  }
}

/** Whether the connection is up, since when it is down, and who to tell when it comes back. */
interface ConnectionWatch {
  /** Undefined while connected; otherwise when the connection was lost. */
  downSince(): Date | undefined;
  readonly reconnectListeners: Set<() => void>;
}

function watchConnection(nc: NatsConnection, logger: BusLogger): ConnectionWatch {
  let downSince: Date | undefined;
  let attempts = 0;
  const reconnectListeners = new Set<() => void>();
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === "disconnect") {
        downSince ??= new Date();
        attempts = 0;
        logger.warn({ data: String(status.data) }, "nats connection lost; reconnecting until it is back");
      } else if (status.type === "reconnecting") {
        attempts++;
        // One line a minute or so while the broker stays away, not one per attempt.
        if (attempts % 60 === 0) logger.warn({ attempts, downSince }, "nats still unreachable");
      } else if (status.type === "reconnect") {
        logger.info({ data: String(status.data), downSince }, "nats reconnected");
        downSince = undefined;
        for (const listener of reconnectListeners) {
          try {
            listener();
          } catch (err) {
            logger.error({ err }, "a reconnect listener failed");
          }
        }
      } else if (status.type === "error") {
        logger.warn({ data: String(status.data) }, "nats connection problem");
      }
    }
  })();
  return { downSince: () => downSince, reconnectListeners };
}

function natsBus(nc: NatsConnection, jsm: JetStreamManager, streamName: string, logger: BusLogger, watch: ConnectionWatch): Transport {
  const js = nc.jetstream();
  const consumers = new Set<Consumer>();

  return {
    publish(subject, payload) {
      assertSubject(subject, { wildcards: false });
      try {
        nc.publish(subject, encode(payload));
      } catch (err) {
        // A notification is fire-and-forget: a closed or overfull connection loses it, as an outage would.
        logger.warn({ err, subject }, "notification not sent");
      }
    },

    subscribe(pattern, handler) {
      assertSubject(pattern, { wildcards: true });
      const sub = nc.subscribe(pattern, {
        callback: (err, msg) => {
          if (err) return logger.error({ err, subject: pattern }, "subscription failed");
          Promise.resolve()
            .then(() => handler(msg.json(), msg.subject))
            .catch((handlerErr) => logger.error({ err: handlerErr, subject: msg.subject }, "notification handler failed"));
        },
      });
      return { unsubscribe: () => sub.unsubscribe() };
    },

    async request(subject, payload, { timeoutMs = defaultRequestTimeoutMs } = {}) {
      assertSubject(subject, { wildcards: false });
      try {
        const msg = await nc.request(subject, encode(payload), { timeout: timeoutMs });
        return unwrapReply(msg.json<ReplyEnvelope>(), subject);
      } catch (err) {
        if (err instanceof NatsError && err.code === ErrorCode.NoResponders) {
          throw new BusRequestError("no-responders", `no responders for ${subject}`);
        }
        if (err instanceof NatsError && err.code === ErrorCode.Timeout) {
          throw new BusRequestError("timeout", `request to ${subject} timed out after ${timeoutMs} ms`);
        }
        throw err;
      }
    },

    reply(pattern, handler, { queue = pattern } = {}) {
      assertSubject(pattern, { wildcards: true });
      const sub = nc.subscribe(pattern, {
        queue,
        callback: (err, msg) => {
          if (err) return logger.error({ err, subject: pattern }, "reply subscription failed");
          let payload: unknown;
          const respond = (envelope: ReplyEnvelope) => {
            try {
              msg.respond(encode(envelope));
            } catch (respondErr) {
              // The connection went while the handler ran; the requester times out and asks again.
              logger.debug({ err: respondErr, subject: msg.subject }, "reply not sent");
            }
          };
          try {
            payload = msg.json();
          } catch {
            respond({ ok: false, error: { name: "TypeError", message: "request payload is not JSON" } });
            return;
          }
          void runReplyHandler(handler, payload, msg.subject).then(respond);
        },
      });
      return { unsubscribe: () => sub.unsubscribe() };
    },

    async publishEvent(subject, payload, { msgId }) {
      assertSubject(subject, { wildcards: false });
      if (typeof msgId !== "string" || msgId.length === 0) throw new TypeError("publishEvent needs a non-empty msgId");
      const ack = await js.publish(subject, encode(payload), { msgID: msgId, expect: { streamName } });
      return { seq: ack.seq, duplicate: ack.duplicate };
    },

    async consume(durableName, filterSubject, handler, consumeOptions) {
      assertSubject(filterSubject, { wildcards: true });
      if (!durableName) throw new TypeError("consume needs a durable name");
      const resolved = { ...resolveConsumeOptions(consumeOptions), onDeadLetter: consumeOptions?.onDeadLetter };
      const setUp = async () => {
        await ensureConsumer(jsm, streamName, durableName, filterSubject, resolved);
        return (await js.consumers.get(streamName, durableName)).consume({ max_messages: resolved.concurrency });
      };
      const consumer = await runConsumer(nc, durableName, await setUp(), setUp, handler, resolved, logger);
      const tracked: Consumer = {
        async stop() {
          consumers.delete(tracked);
          await consumer.stop();
        },
      };
      consumers.add(tracked);
      return tracked;
    },

    async ping() {
      const since = watch.downSince();
      if (nc.isClosed()) throw new Error("NATS connection is closed");
      if (since) throw new Error(`NATS unreachable since ${since.toISOString()}; reconnecting`);
    },

    onReconnect(listener) {
      watch.reconnectListeners.add(listener);
      return { unsubscribe: () => void watch.reconnectListeners.delete(listener) };
    },

    async close() {
      if (nc.isClosed()) return;
      await Promise.allSettled([...consumers].map((c) => c.stop()));
      await nc.drain().catch(() => nc.close());
    },
  };
}

type ResolvedConsumeOptions = ReturnType<typeof resolveConsumeOptions> & Pick<ConsumeOptions, "onDeadLetter">;

/**
 * Durable pull consumer with explicit acks. The client, not the server, counts attempts and
 * terminates (`max_deliver` stays unlimited on the server) so a message that exhausts its
 * attempts always reaches `onDeadLetter` instead of being dropped silently. `max_ack_pending`
 * equals the concurrency: a message waiting for its backoff keeps its slot, which keeps order.
 */
async function ensureConsumer(
  jsm: JetStreamManager,
  stream: string,
  durable: string,
  filterSubject: string,
  options: ResolvedConsumeOptions,
) {
  const tunable = { ack_wait: nanos(options.ackWaitMs), max_ack_pending: options.concurrency, max_deliver: -1 };
  try {
    const info = await jsm.consumers.info(stream, durable);
    if (info.config.filter_subject !== filterSubject) {
      throw new Error(`durable ${durable} filters ${info.config.filter_subject}, not ${filterSubject}`);
    }
    const current = info.config;
    if (
      current.ack_wait !== tunable.ack_wait ||
      current.max_ack_pending !== tunable.max_ack_pending ||
      current.max_deliver !== tunable.max_deliver
    ) {
      await jsm.consumers.update(stream, durable, tunable);
    }
  } catch (err) {
    if (!isApiError(err, consumerNotFound)) throw err;
    await jsm.consumers.add(stream, {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: filterSubject,
      ...tunable,
    });
  }
}

/**
 * Fetches and handles messages until stopped. Should the message iterator end or fail on its own
 * (the broker lost the consumer, or a long outage wore the pull down), the consumer is set up
 * again, with backoff, for as long as it takes.
 */
async function runConsumer(
  nc: NatsConnection,
  durableName: string,
  first: ConsumerMessages,
  setUp: () => Promise<ConsumerMessages>,
  handler: EventHandler,
  options: ResolvedConsumeOptions,
  logger: BusLogger,
): Promise<Consumer> {
  let messages = first;
  const inFlight = new Set<Promise<void>>();
  let stopping = false;
  let wakeUp: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wakeUp = () => (clearTimeout(timer), resolve());
    });

  const drain = async () => {
    for await (const m of messages) {
      // Already fetched but not started: hand it back for immediate redelivery.
      if (stopping) {
        m.nak();
        continue;
      }
      const run = handleMessage(m, handler, options, logger);
      inFlight.add(run);
      void run.finally(() => inFlight.delete(run));
      while (inFlight.size >= options.concurrency) await Promise.race(inFlight);
    }
  };

  const loop = (async () => {
    for (let restarts = 0; ; restarts++) {
      try {
        await drain();
        if (!stopping) logger.warn({ consumer: durableName }, "consumer stopped fetching; setting it up again");
      } catch (err) {
        if (!stopping) logger.error({ err, consumer: durableName }, "consumer failed; setting it up again");
      }
      if (stopping) return;
      await pause(Math.min(500 * 2 ** Math.min(restarts, 5), 15_000));
      if (stopping) return;
      try {
        messages = await setUp();
        restarts = -1;
      } catch (err) {
        logger.warn({ err, consumer: durableName }, "consumer could not be set up yet; retrying");
      }
    }
  })();

  return {
    async stop() {
      if (stopping) return loop;
      stopping = true;
      messages.stop();
      wakeUp?.();
      await loop;
      await Promise.allSettled([...inFlight]);
      // Acks, naks and terms are fire-and-forget: make sure they reached the server.
      if (!nc.isClosed()) await nc.flush().catch(() => undefined);
    },
  };
}

async function handleMessage(m: JsMsg, handler: EventHandler, options: ResolvedConsumeOptions, logger: BusLogger): Promise<void> {
  const msg: EventMessage = {
    subject: m.subject,
    data: undefined,
    seq: m.seq,
    msgId: m.headers?.get("Nats-Msg-Id") || undefined,
    deliveryCount: m.info.deliveryCount,
  };
  // While the handler runs the message stays ours; ack_wait only redelivers if this process dies.
  const keepAlive = setInterval(() => m.working(), Math.max(1, Math.floor(options.ackWaitMs / 2)));
  try {
    msg.data = decodeData(m);
    await handler(msg);
  } catch (err) {
    await settleFailure(m, msg, err, options, logger);
    return;
  } finally {
    clearInterval(keepAlive);
  }
  try {
    await m.ackAck();
  } catch (err) {
    logger.warn({ err, seq: msg.seq }, "ack not confirmed; the event may be redelivered");
  }
}

async function settleFailure(m: JsMsg, msg: EventMessage, err: unknown, options: ResolvedConsumeOptions, logger: BusLogger) {
  if (msg.deliveryCount >= options.maxDeliver) {
    try {
      await options.onDeadLetter?.(msg, err);
      m.term();
      logger.warn({ err, subject: msg.subject, seq: msg.seq, deliveryCount: msg.deliveryCount }, "event dead-lettered");
      return;
    } catch (deadLetterErr) {
      logger.error({ err: deadLetterErr, seq: msg.seq }, "dead-letter callback failed; event will be redelivered");
    }
  }
  const delay = backoffDelay(options.backoffMs, msg.deliveryCount);
  logger.debug({ err, subject: msg.subject, seq: msg.seq, delay }, "event handler failed; redelivering");
  m.nak(delay);
}

/** A message that is not JSON fails like a handler error, so it ends up dead-lettered, not lost. */
function decodeData(m: JsMsg): unknown {
  try {
    return m.json();
  } catch {
    throw new TypeError(`event ${m.seq} on ${m.subject} is not JSON: ${decoder.decode(m.data.subarray(0, 80))}`);
  }
}

function isApiError(err: unknown, code: number): boolean {
  return err instanceof NatsError && err.api_error?.err_code === code;
}
