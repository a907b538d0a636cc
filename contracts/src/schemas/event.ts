import { z } from "zod";
import { dateTimeSchema } from "../common.js";
import { eventTypeSchema } from "../events.js";

/** An entry of the event log as the admin API shows it (Unleash's field names; `id` an integer). */
export const eventSchema = z.object({
  id: z.number().int(),
  type: eventTypeSchema,
  createdAt: dateTimeSchema,
  createdBy: z.string(),
  createdByUserId: z.number().nullable(),
  environment: z.string().nullable(),
  project: z.string().nullable(),
  featureName: z.string().nullable(),
  data: z.unknown(),
  preData: z.unknown(),
  tags: z.array(z.object({ type: z.string(), value: z.string() })),
});
export type EventEntry = z.infer<typeof eventSchema>;

const pageSchema = {
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
};

export const eventListQuerySchema = z.object({
  project: z.string().optional(),
  feature: z.string().optional(),
  ...pageSchema,
});

export const eventStreamQuerySchema = z.object({ project: z.string().min(1).optional() });

export const eventListSchema = z.object({
  version: z.literal(1),
  events: z.array(eventSchema),
  totalEvents: z.number().int(),
});

export const featureEventListSchema = eventListSchema.extend({ toggleName: z.string() });

/** Unleash's `/search/events` filters (a subset: exact matches, a date range and paging). */
export const eventSearchQuerySchema = z.object({
  project: z.string().optional(),
  feature: z.string().optional(),
  type: eventTypeSchema.optional(),
  createdBy: z.string().optional(),
  from: z.string().date("Must be a date (YYYY-MM-DD)").optional(),
  to: z.string().date("Must be a date (YYYY-MM-DD)").optional(),
  ...pageSchema,
});

export const eventSearchResultSchema = z.object({ events: z.array(eventSchema), total: z.number().int() });
