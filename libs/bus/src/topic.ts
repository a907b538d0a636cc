import type {
  BusLogger,
  ConsumeOptions,
  Consumer,
  EventMessage,
  PublishEventOptions,
  PublishEventResult,
  ReplyOptions,
  RequestOptions,
  Subscription,
  Transport,
} from "./bus.js";

/**
 * What a topic's schema must offer: zod's `safeParse`. Structural, so this library needs no schema
 * package; contracts/ declares every topic (`topics.*`) with zod.
 */
export interface PayloadSchema<T> {
  safeParse(payload: unknown): { success: true; data: T } | { success: false; error: { issues: readonly unknown[] } };
}

/** Core publish/subscribe: whoever listens right now hears it. */
export interface NoticeTopic<T> {
  readonly kind: "notice";
  readonly subject: string;
  readonly schema: PayloadSchema<T>;
  /** True for a subject with a wildcard: it can be listened to, not published on. */
  readonly wildcard?: boolean;
}

/** A durable event in the JetStream stream. */
export interface EventTopic<T> {
  readonly kind: "event";
  readonly subject: string;
  readonly schema: PayloadSchema<T>;
  readonly wildcard?: boolean;
}

/** Request/reply, with the schemas of both. */
export interface RequestTopic<Req, Res> {
  readonly kind: "request";
  readonly subject: string;
  readonly request: PayloadSchema<Req>;
  readonly reply: PayloadSchema<Res>;
}

/** A topic with one concrete subject, as publishing needs. */
type Concrete = { readonly wildcard?: false };

export interface TopicConsumeOptions extends Omit<ConsumeOptions, "onDeadLetter"> {
  /** As `ConsumeOptions.onDeadLetter`; the message's data is as received. */
  onDeadLetter?: (msg: EventMessage, err: unknown) => void | Promise<void>;
}

/**
 * The bus services use: every call takes a contracts topic, so the payload has the topic's type
 * when sent, and is validated once when received. A malformed notice or event is logged and
 * skipped (retrying would not change it); a malformed request is answered with a
 * `MalformedPayloadError`, and a malformed reply rejects with one.
 */
export interface Bus {
  /** Fire-and-forget notification (core NATS): subscribers connected right now receive it. */
  publish<T>(topic: NoticeTopic<T> & Concrete, payload: NoInfer<T>): void;
  /** A wildcard topic hears every subject it matches; `subject` says which one. */
  subscribe<T>(topic: NoticeTopic<T>, handler: (payload: T, subject: string) => void | Promise<void>): Subscription;
  /** Rejects with `BusRequestError` (`no-responders`, `timeout` or `remote` for a handler error). */
  request<Req, Res>(topic: RequestTopic<Req, Res>, payload: NoInfer<Req>, options?: RequestOptions): Promise<Res>;
  reply<Req, Res>(
    topic: RequestTopic<Req, Res>,
    handler: (payload: Req, subject: string) => NoInfer<Res> | Promise<NoInfer<Res>>,
    options?: ReplyOptions,
  ): Subscription;
  /** Durable, deduplicated event (JetStream). */
  publishEvent<T>(topic: EventTopic<T> & Concrete, payload: NoInfer<T>, options: PublishEventOptions): Promise<PublishEventResult>;
  /** At-least-once delivery to a durable consumer: ack after `handler` resolves, redeliver on throw. */
  consume<T>(
    durableName: string,
    topic: EventTopic<T>,
    handler: (msg: EventMessage<T>) => void | Promise<void>,
    options?: TopicConsumeOptions,
  ): Promise<Consumer>;
  /** Resolves while the broker is reachable; rejects, saying since when and why, while it is not. */
  ping(): Promise<void>;
  /**
   * Called each time the connection comes back after a loss (not on the first connect).
   * Notifications sent while it was away are gone: listeners re-announce and re-read what they follow.
   */
  onReconnect(listener: () => void): Subscription;
  /** Stops consumers, then drains the connection. */
  close(): Promise<void>;
}

/** A payload that does not match its topic's schema. */
export class MalformedPayloadError extends Error {
  override name = "MalformedPayloadError";
  constructor(
    message: string,
    readonly issues: readonly unknown[],
  ) {
    super(message);
  }
}

/** Lets this library's own wrappers (namespacing) reach the transport under a bus. */
const transports = new WeakMap<Bus, { transport: Transport; logger: BusLogger }>();

export function transportOf(bus: Bus): { transport: Transport; logger: BusLogger } {
  const inner = transports.get(bus);
  if (!inner) throw new TypeError("not a bus made by @vexil/bus");
  return inner;
}

/** The typed bus over a transport. */
export function topicBus(transport: Transport, logger: BusLogger): Bus {
  const parse = <T>(schema: PayloadSchema<T>, payload: unknown, what: string, subject: string): T => {
    const parsed = schema.safeParse(payload);
    if (parsed.success) return parsed.data;
    throw new MalformedPayloadError(`malformed ${what} on ${subject}`, parsed.error.issues);
  };
  const bus: Bus = {
    publish: (topic, payload) => transport.publish(topic.subject, payload),
    subscribe: (topic, handler) =>
      transport.subscribe(topic.subject, (payload, subject) => {
        const parsed = topic.schema.safeParse(payload);
        if (!parsed.success) return logger.warn({ subject, issues: parsed.error.issues }, "ignoring a malformed notice");
        return handler(parsed.data, subject);
      }),
    request: async (topic, payload, options) =>
      parse(topic.reply, await transport.request(topic.subject, payload, options), "reply", topic.subject),
    reply: (topic, handler, options) =>
      transport.reply(topic.subject, (payload, subject) => handler(parse(topic.request, payload, "request", subject), subject), options),
    publishEvent: (topic, payload, options) => transport.publishEvent(topic.subject, payload, options),
    consume: (durableName, topic, handler, options) =>
      transport.consume(
        durableName,
        topic.subject,
        (msg) => {
          const parsed = topic.schema.safeParse(msg.data);
          if (!parsed.success) {
            // Acked and skipped: a redelivery would be just as malformed.
            return logger.warn({ subject: msg.subject, seq: msg.seq, issues: parsed.error.issues }, "skipping a malformed event");
          }
          return handler({ ...msg, data: parsed.data });
        },
        options,
      ),
    ping: () => transport.ping(),
    onReconnect: (listener) => transport.onReconnect(listener),
    close: () => transport.close(),
  };
  transports.set(bus, { transport, logger });
  return bus;
}
