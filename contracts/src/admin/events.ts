import { c, errorResponses, routerOptions } from "../common.js";
import {
  eventListQuerySchema,
  eventListSchema,
  eventSearchQuerySchema,
  eventSearchResultSchema,
  featureEventListSchema,
} from "../schemas/index.js";

/** The event log, newest first. */
export const eventsContract = c.router(
  {
    list: {
      method: "GET",
      path: "/events",
      summary: "Events, optionally of one project or feature",
      description:
        "The event log (every change, who made it, the data before and after), newest first, optionally of one project or flag. Kept EVENT_LOG_RETENTION_DAYS days.",
      query: eventListQuerySchema,
      responses: { 200: eventListSchema, ...errorResponses(400, 401, 403) },
    },
    forFeature: {
      method: "GET",
      path: "/events/:featureName",
      summary: "Events of one feature",
      description: "The event log of one flag, newest first.",
      query: eventListQuerySchema.pick({ offset: true, limit: true }),
      responses: { 200: featureEventListSchema, ...errorResponses(400, 401, 403) },
    },
    search: {
      method: "GET",
      path: "/search/events",
      summary: "Search events by project, feature, type, author and date",
      description: "Events filtered by project, flag, type, author and date range, with paging.",
      query: eventSearchQuerySchema,
      responses: { 200: eventSearchResultSchema, ...errorResponses(400, 401, 403) },
    },
  },
  routerOptions,
);
