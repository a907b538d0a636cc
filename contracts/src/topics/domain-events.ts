import { z } from "zod";
import { dateTimeSchema } from "../common.js";
import { eventTypeSchema, type EventType } from "../schemas/event.js";
import { tagSchema } from "../schemas/tag.js";
import { streamEvent, withParameter } from "./topic.js";

/** A domain event, as the admin writes it to its outbox and publishes it on `events.<type>`. */
export const domainEventSchema = z.object({
  /** Unique per event; also the JetStream message id, so redeliveries and republishes dedupe. */
  id: z.string().min(1),
  type: eventTypeSchema,
  createdAt: dateTimeSchema,
  createdBy: z.string(),
  createdByUserId: z.number(),
  project: z.string().nullable().default(null),
  environment: z.string().nullable().default(null),
  featureName: z.string().nullable().default(null),
  data: z.unknown().nullable().default(null),
  preData: z.unknown().nullable().default(null),
  tags: z.array(tagSchema).default([]),
});
export type DomainEvent = z.infer<typeof domainEventSchema>;
export type DomainEventInput = z.input<typeof domainEventSchema>;

export const domainEventTopics = {
  /** `events.>` for consumers of every domain event; `of(type)` is the subject the outbox relay publishes on. */
  domainEvents: withParameter(streamEvent("events.>", domainEventSchema), (type: EventType) => `events.${type}`),
} as const;
