import type { z } from "zod";

/** A payload schema: input is unknown, as payloads arrive as parsed JSON and schemas may fill defaults. */
export type PayloadSchema<T> = z.ZodType<T, z.ZodTypeDef, unknown>;

/** Core NATS publish/subscribe: whoever listens right now hears it; nothing is kept. */
export function notice<T>(subject: string, schema: PayloadSchema<T>) {
  return { kind: "notice", subject, schema } as const;
}

/** A durable event in the JetStream event stream, read by durable consumers at least once. */
export function streamEvent<T>(subject: string, schema: PayloadSchema<T>) {
  return { kind: "event", subject, schema } as const;
}

/** Request/reply: one responder (of a queue group) answers each request. */
export function request<Req, Res>(subject: string, requestSchema: PayloadSchema<Req>, replySchema: PayloadSchema<Res>) {
  return { kind: "request", subject, request: requestSchema, reply: replySchema } as const;
}

/**
 * A subject with a parameter in its last token: the topic itself carries the wildcard subject
 * (subscribe or consume it to hear every value), `of(value)` the concrete topic to publish on.
 */
export function withParameter<Topic extends { subject: string }, Args extends unknown[]>(
  topic: Topic,
  subjectOf: (...args: Args) => string,
) {
  return { ...topic, wildcard: true as const, of: (...args: Args): Topic => ({ ...topic, subject: subjectOf(...args) }) };
}

/**
 * Escapes a value for use as one NATS subject token: `.`, `*`, `>` and whitespace would otherwise
 * split the subject or act as wildcards. Percent-encoding keeps it reversible.
 */
export function subjectToken(value: string): string {
  if (value.length === 0) throw new Error("A subject token cannot be empty");
  return encodeURIComponent(value).replace(/\./g, "%2E").replace(/\*/g, "%2A");
}
