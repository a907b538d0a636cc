export {
  type Backoff,
  type Bus,
  type BusLogger,
  BusRequestError,
  type BusRequestErrorCode,
  type ConsumeOptions,
  type Consumer,
  type EventHandler,
  type EventMessage,
  type NotificationHandler,
  type PublishEventOptions,
  type PublishEventResult,
  type ReplyHandler,
  type ReplyOptions,
  type RequestOptions,
  type Subscription,
  backoffDelay,
  isNoResponders,
} from "./bus.js";
export { createMemoryBus, type MemoryBusOptions } from "./memory-bus.js";
export { createNatsBus, type NatsBusOptions } from "./nats-bus.js";
export { type OutboxEvent, type OutboxRelay, type OutboxRelayOptions, type OutboxSource, startOutboxRelay } from "./outbox-relay.js";
export { assertSubject, subjectMatches } from "./subjects.js";
export { namespacedBus } from "./namespaced-bus.js";
export { publishTopic, subscribeTopic, type TypedTopic } from "./topic.js";
