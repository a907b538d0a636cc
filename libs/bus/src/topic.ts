import type { Bus, Subscription } from "./bus.js";

/**
 * A subject and the schema of its payload, as contracts/ declares them (`topics.*`). Structural, so
 * this library needs no schema package: a zod schema satisfies it.
 */
export interface TypedTopic<T> {
  subject: string;
  schema: {
    safeParse(payload: unknown): { success: true; data: T } | { success: false; error: { issues: readonly unknown[] } };
  };
}

/** Publishes a payload of the topic's type (fire-and-forget, as `Bus.publish`). */
export function publishTopic<T>(bus: Pick<Bus, "publish">, topic: TypedTopic<T>, payload: T): void {
  bus.publish(topic.subject, payload);
}

/**
 * Subscribes with a typed handler: each payload is validated once, here; a malformed one goes to
 * `onMalformed` (log it) instead of the handler, so a bad publisher cannot break a consumer.
 */
export function subscribeTopic<T>(
  bus: Pick<Bus, "subscribe">,
  topic: TypedTopic<T>,
  handler: (payload: T, subject: string) => void | Promise<void>,
  onMalformed: (issues: readonly unknown[], subject: string) => void,
): Subscription {
  return bus.subscribe(topic.subject, (payload, subject) => {
    const parsed = topic.schema.safeParse(payload);
    if (!parsed.success) return onMalformed(parsed.error.issues, subject);
    return handler(parsed.data, subject);
  });
}
