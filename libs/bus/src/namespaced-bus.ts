import type { Transport } from "./bus.js";
import { topicBus, transportOf, type Bus } from "./topic.js";

/**
 * Puts every subject of a bus under a namespace (`<namespace>.<subject>`), so several Vexil
 * installations — or test runs — can share one NATS server without hearing each other. Handlers
 * see subjects without the namespace, so code is the same either way.
 */
export function namespacedBus(inner: Bus, namespace: string): Bus {
  const { transport, logger } = transportOf(inner);
  return topicBus(namespacedTransport(transport, namespace), logger);
}

export function namespacedTransport(inner: Transport, namespace: string): Transport {
  const prefix = `${namespace}.`;
  const add = (subject: string) => prefix + subject;
  const strip = (subject: string) => (subject.startsWith(prefix) ? subject.slice(prefix.length) : subject);
  return {
    publish: (subject, payload) => inner.publish(add(subject), payload),
    subscribe: (subject, handler) => inner.subscribe(add(subject), (payload, actual) => handler(payload, strip(actual))),
    request: (subject, payload, options) => inner.request(add(subject), payload, options),
    reply: (subject, handler, options) =>
      inner.reply(add(subject), (payload, actual) => handler(payload, strip(actual)), {
        ...options,
        ...(options?.queue ? { queue: add(options.queue) } : {}),
      }),
    publishEvent: (subject, payload, options) => inner.publishEvent(add(subject), payload, options),
    consume: (durableName, filterSubject, handler, options) =>
      inner.consume(durableName, add(filterSubject), (msg) => handler({ ...msg, subject: strip(msg.subject) }), {
        ...options,
        ...(options?.onDeadLetter
          ? { onDeadLetter: (msg, err) => options.onDeadLetter!({ ...msg, subject: strip(msg.subject) }, err) }
          : {}),
      }),
    ping: () => inner.ping(),
    onReconnect: (listener) => inner.onReconnect(listener),
    close: () => inner.close(),
  };
}
