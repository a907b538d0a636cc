import { z } from "zod";
import { permissions, requires } from "../route-access.js";
import { c, errorResponses, routerOptions } from "../common.js";
import {
  eventListQuerySchema,
  eventListSchema,
  eventSearchQuerySchema,
  eventSearchResultSchema,
  eventStreamQuerySchema,
  featureEventListSchema,
} from "../schemas/index.js";

/** The event log, newest first. */
export const eventsContract = c.router(
  {
    list: {
      method: "GET",
      path: "/events",
      metadata: requires(permissions.read),
      summary: "Events, optionally of one project or feature",
      description:
        "The event log (every change, who made it, the data before and after), newest first, optionally of one project or flag. Kept EVENT_LOG_RETENTION_DAYS days.",
      query: eventListQuerySchema,
      responses: { 200: eventListSchema, ...errorResponses(400, 401, 403) },
    },
    forFeature: {
      method: "GET",
      path: "/events/:featureName",
      metadata: requires(permissions.read),
      summary: "Events of one feature",
      description: "The event log of one flag, newest first.",
      query: eventListQuerySchema.pick({ offset: true, limit: true }),
      responses: { 200: featureEventListSchema, ...errorResponses(400, 401, 403) },
    },
    // Not in Unleash. Beside /events rather than under it, where a flag named "stream" would be shadowed.
    stream: {
      method: "GET",
      path: "/event-stream",
      metadata: requires(permissions.read, { project: "query.project" }),
      summary: "Server-sent events: each event of the log as it is committed; resumes from Last-Event-ID",
      description:
        "A server-sent event stream of the event log, for pages that show changes as they happen. First `connected` (`{latestEventId, resumed}`), then one unnamed message per committed event the caller may read, with the event log's fields and `id` = the event id, and a `: keep-alive` comment every 15 s. `project` narrows it to one project. A reconnect with `Last-Event-ID` gets the events it missed first (`resumed: true`), or `reset` when they are too many or gone: reload what is shown.",
      query: eventStreamQuerySchema,
      responses: { 200: c.otherResponse({ contentType: "text/event-stream", body: z.string() }), ...errorResponses(400, 401, 403, 404) },
    },
    search: {
      method: "GET",
      path: "/search/events",
      metadata: requires(permissions.read),
      summary: "Search events by project, feature, type, author and date",
      description: "Events filtered by project, flag, type, author and date range, with paging.",
      query: eventSearchQuerySchema,
      responses: { 200: eventSearchResultSchema, ...errorResponses(400, 401, 403) },
    },
  },
  routerOptions,
);
