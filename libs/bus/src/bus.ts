/** Pino-compatible logger, injected so the bus never owns a global one. */
export interface BusLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

export interface Subscription {
  unsubscribe(): void;
}

export type NotificationHandler = (payload: unknown, subject: string) => void | Promise<void>;
export type ReplyHandler = (payload: unknown, subject: string) => unknown;

export interface RequestOptions {
  timeoutMs?: number;
}

export interface ReplyOptions {
  /** Queue group: one responder of the group answers each request. Defaults to the subject. */
  queue?: string;
}

export interface PublishEventOptions {
  /** Idempotency key: a second publish with the same id inside the duplicate window is dropped. */
  msgId: string;
}

export interface PublishEventResult {
  /** Stream sequence of the stored event (of the first copy when `duplicate`). */
  seq: number;
  duplicate: boolean;
}

export interface EventMessage<T = unknown> {
  subject: string;
  data: T;
  seq: number;
  msgId: string | undefined;
  /** 1 on first delivery, incremented on each redelivery. */
  deliveryCount: number;
}

export type EventHandler = (msg: EventMessage) => void | Promise<void>;

/** Delay before redelivery after the n-th failed attempt (n starts at 1). */
export type Backoff = number[] | ((attempt: number) => number);

export interface ConsumeOptions {
  /** Attempts before the message is terminated and handed to `onDeadLetter`. Default 5. */
  maxDeliver?: number;
  /** Redelivery delay after a failed attempt. Default [1000, 5000, 30000]. */
  backoffMs?: Backoff;
  /** Messages handled at once. Default 1, which keeps the stream order. */
  concurrency?: number;
  /**
   * NATS only: how long the server waits before redelivering a message whose consumer went away
   * mid-handling (a live handler keeps its message however long it runs). Default 4 s.
   */
  ackWaitMs?: number;
  /**
   * Called once a message has failed `maxDeliver` times, before it is terminated. If this
   * callback throws, the message is not terminated and comes back after the backoff delay.
   */
  onDeadLetter?: (msg: EventMessage, err: unknown) => void | Promise<void>;
}

export interface Consumer {
  /** Stops fetching and waits for the handlers in flight; their acks still go out. */
  stop(): Promise<void>;
}

/**
 * The raw subject-and-JSON API the NATS and in-memory implementations share. Private to this
 * library: services use the typed `Bus` (topic.ts), which takes a contracts topic instead of a subject.
 */
export interface Transport {
  /** Fire-and-forget notification (core NATS): subscribers connected right now receive it. */
  publish(subject: string, payload: unknown): void;
  /** `subject` may use `*` (one token) and `>` (one or more trailing tokens). */
  subscribe(subject: string, handler: NotificationHandler): Subscription;
  /** Rejects with `BusRequestError` (`no-responders`, `timeout` or `remote` for a handler error). */
  request(subject: string, payload: unknown, options?: RequestOptions): Promise<unknown>;
  reply(subject: string, handler: ReplyHandler, options?: ReplyOptions): Subscription;
  /** Durable, deduplicated domain event (JetStream). */
  publishEvent(subject: string, payload: unknown, options: PublishEventOptions): Promise<PublishEventResult>;
  /** At-least-once delivery to a durable consumer: ack after `handler` resolves, redeliver on throw. */
  consume(durableName: string, filterSubject: string, handler: EventHandler, options?: ConsumeOptions): Promise<Consumer>;
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

export type BusRequestErrorCode = "no-responders" | "timeout" | "remote";

/** A request nobody subscribes to yet: the service that answers it has not started (or is down). */
export function isNoResponders(err: unknown): boolean {
  return err instanceof BusRequestError && err.code === "no-responders";
}

export class BusRequestError extends Error {
  override name = "BusRequestError";
  constructor(
    readonly code: BusRequestErrorCode,
    message: string,
    /** For `remote`: the `name` of the error the replying handler threw. */
    readonly remoteName?: string,
  ) {
    super(message);
  }
}

/** What a replier sends back; both bus implementations use the same envelope. */
export type ReplyEnvelope = { ok: true; data: unknown } | { ok: false; error: { name: string; message: string } };

export async function runReplyHandler(handler: ReplyHandler, payload: unknown, subject: string): Promise<ReplyEnvelope> {
  try {
    return { ok: true, data: (await handler(payload, subject)) ?? null };
  } catch (err) {
    const error = err instanceof Error ? { name: err.name, message: err.message } : { name: "Error", message: String(err) };
    return { ok: false, error };
  }
}

export function unwrapReply(envelope: ReplyEnvelope, subject: string): unknown {
  if (envelope.ok) return envelope.data;
  throw new BusRequestError("remote", envelope.error.message || `request to ${subject} failed`, envelope.error.name);
}

export const defaultConsumeOptions = {
  maxDeliver: 5,
  backoffMs: [1000, 5000, 30000] as Backoff,
  concurrency: 1,
  // Short, so a message held by a process that died comes back within seconds; a live handler
  // renews it every half of this however long it runs.
  ackWaitMs: 4000,
};

export const defaultRequestTimeoutMs = 5000;

export function resolveConsumeOptions(options: ConsumeOptions = {}) {
  const resolved = { ...defaultConsumeOptions, ...withoutUndefined(options) };
  if (!Number.isInteger(resolved.maxDeliver) || resolved.maxDeliver < 1) {
    throw new RangeError(`maxDeliver must be a positive integer, got ${resolved.maxDeliver}`);
  }
  if (!Number.isInteger(resolved.concurrency) || resolved.concurrency < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${resolved.concurrency}`);
  }
  if (!(resolved.ackWaitMs > 0)) throw new RangeError(`ackWaitMs must be positive, got ${resolved.ackWaitMs}`);
  if (Array.isArray(resolved.backoffMs) && resolved.backoffMs.some((ms) => !(ms >= 0))) {
    throw new RangeError("backoffMs entries must be non-negative numbers");
  }
  return resolved;
}

/** Delay after the given failed attempt; an array repeats its last entry. */
export function backoffDelay(backoff: Backoff, attempt: number): number {
  const ms = Array.isArray(backoff) ? (backoff[Math.min(attempt, backoff.length) - 1] ?? 0) : backoff(attempt);
  return Number.isFinite(ms) && ms > 0 ? Math.round(ms) : 0;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function withoutUndefined<T extends object>(obj: T): Partial<T> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as Partial<T>;
}
