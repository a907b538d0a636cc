import { type BusLogger, BusRequestError, type Consumer, type Subscription, type Transport, errorMessage } from "./bus.js";

/** Wait before trying again to reach the broker: 0.5 s doubling to 10 s. */
const defaultRetryDelayMs = (attempt: number) => Math.min(500 * 2 ** attempt, 10_000);

interface Deferred {
  /** Attaches to the transport once it is open. */
  attach(transport: Transport): void | Promise<void>;
}

/**
 * A transport usable at once while the broker it needs may be unreachable: `open` is tried again
 * with backoff until it succeeds, and meanwhile the transport behaves as during an outage.
 * Subscriptions, replies, consumers and reconnect listeners given before it opens are set up on it
 * once it does; notices are dropped, requests and durable publishes fail (their callers retry), and
 * `ping` says since when the broker is unreachable. When it opens, every reconnect listener is
 * called once, since whatever was announced before was missed. A process can so start and serve
 * what it holds (frontend-eval from the cache, admin into its outbox) without waiting for NATS.
 */
export function deferredTransport(
  open: () => Promise<Transport>,
  logger: BusLogger,
  {
    retryDelayMs = defaultRetryDelayMs,
    name = "NATS",
    firstError,
  }: {
    retryDelayMs?: (attempt: number) => number;
    name?: string;
    /** Why the caller's own first try failed: waits a delay before trying again. */
    firstError?: unknown;
  } = {},
): Transport {
  const since = new Date();
  let lastError = firstError === undefined ? "connecting" : errorMessage(firstError);
  let inner: Transport | undefined;
  let closed = false;
  let wakeUp: (() => void) | undefined;
  const pending = new Set<Deferred>();
  const reconnectListeners = new Set<() => void>();

  const unreachable = () => `${name} unreachable since ${since.toISOString()} (${lastError}); connecting`;

  void (async () => {
    for (let attempt = 0; !closed; attempt++) {
      try {
        if (attempt === 0 && firstError !== undefined) throw firstError;
        const opened = await open();
        if (closed) return void (await opened.close());
        inner = opened;
        break;
      } catch (err) {
        lastError = errorMessage(err);
        // One line at first, then one a minute or so: an outage can last.
        if (attempt === 0 || attempt % 6 === 0)
          logger.warn({ err, attempt }, `${name} unreachable at start; serving without it and retrying`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, retryDelayMs(attempt));
          wakeUp = () => (clearTimeout(timer), resolve());
        });
      }
    }
    if (!inner) return;
    logger.info({ downSince: since }, `${name} reached; setting up what waited for it`);
    for (const waiting of [...pending]) {
      pending.delete(waiting);
      await waiting.attach(inner);
    }
    for (const listener of reconnectListeners) {
      try {
        listener();
      } catch (err) {
        logger.error({ err }, "a reconnect listener failed");
      }
    }
  })();

  /** A subscription (or reply) set up now if open, or once it is. */
  function later(subscribe: (transport: Transport) => Subscription): Subscription {
    if (inner) return subscribe(inner);
    let subscription: Subscription | undefined;
    const waiting: Deferred = { attach: (transport) => void (subscription = subscribe(transport)) };
    pending.add(waiting);
    return {
      unsubscribe() {
        pending.delete(waiting);
        subscription?.unsubscribe();
      },
    };
  }

  return {
    publish(subject, payload) {
      if (inner) return inner.publish(subject, payload);
      logger.debug({ subject }, `notification not sent: ${name} not reached yet`);
    },
    subscribe: (subject, handler) => later((transport) => transport.subscribe(subject, handler)),
    reply: (subject, handler, options) => later((transport) => transport.reply(subject, handler, options)),
    async request(subject, payload, options) {
      if (inner) return inner.request(subject, payload, options);
      throw new BusRequestError("timeout", `request to ${subject} not sent: ${unreachable()}`);
    },
    async publishEvent(subject, payload, options) {
      if (inner) return inner.publishEvent(subject, payload, options);
      throw new Error(`event on ${subject} not published: ${unreachable()}`);
    },
    async consume(durableName, filterSubject, handler, options) {
      if (inner) return inner.consume(durableName, filterSubject, handler, options);
      let consumer: Consumer | undefined;
      let stopped = false;
      const waiting: Deferred = {
        async attach(transport) {
          for (let attempt = 0; !stopped; attempt++) {
            try {
              consumer = await transport.consume(durableName, filterSubject, handler, options);
              if (stopped) await consumer.stop();
              return;
            } catch (err) {
              logger.warn({ err, consumer: durableName }, "consumer could not be set up yet; retrying");
              await new Promise((resolve) => setTimeout(resolve, retryDelayMs(attempt)));
            }
          }
        },
      };
      pending.add(waiting);
      return {
        async stop() {
          stopped = true;
          pending.delete(waiting);
          await consumer?.stop();
        },
      };
    },
    async ping() {
      if (closed) throw new Error(`${name} connection is closed`);
      if (!inner) throw new Error(unreachable());
      return inner.ping();
    },
    onReconnect(listener) {
      reconnectListeners.add(listener);
      // Once open, the transport's own reconnects are relayed too.
      const relayed = later((transport) => transport.onReconnect(listener));
      return {
        unsubscribe() {
          reconnectListeners.delete(listener);
          relayed.unsubscribe();
        },
      };
    },
    async close() {
      closed = true;
      wakeUp?.();
      pending.clear();
      await inner?.close();
    },
  };
}
