export {
  type Backoff,
  type BusLogger,
  BusRequestError,
  type BusRequestErrorCode,
  type ConsumeOptions,
  type Consumer,
  type EventMessage,
  type PublishEventOptions,
  type PublishEventResult,
  type ReplyOptions,
  type RequestOptions,
  type Subscription,
  backoffDelay,
  isNoResponders,
} from "./bus.js";
export { createMemoryBus, type MemoryBusOptions } from "./memory-bus.js";
export { createNatsBus, connectNatsBus, type NatsBusOptions } from "./nats-bus.js";
export { type OutboxEvent, type OutboxRelay, type OutboxRelayOptions, type OutboxSource, startOutboxRelay } from "./outbox-relay.js";
export { namespacedBus } from "./namespaced-bus.js";
export {
  type Bus,
  type EventTopic,
  MalformedPayloadError,
  type NoticeTopic,
  type PayloadSchema,
  type RequestTopic,
  type TopicConsumeOptions,
} from "./topic.js";
