import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import type { EventDocument, EventStore } from "./event-store.js";

/** The event log as the admin API shows it: Unleash's fields, the integer id, newest first. */
export function toEventEntry(doc: EventDocument) {
  return {
    id: doc._id,
    type: doc.type,
    createdAt: doc.createdAt.toISOString(),
    createdBy: doc.createdBy,
    createdByUserId: doc.createdByUserId,
    environment: doc.environment,
    project: doc.project,
    featureName: doc.featureName,
    data: doc.data,
    preData: doc.preData,
    tags: doc.tags,
  };
}

const endOfDay = (date: string) => new Date(`${date}T23:59:59.999Z`);

/** Which projects' events the caller of a request may not read: the private projects it is no member of. */
export type HiddenProjects = (req: object) => Promise<string[]>;

/** Every listing applies the visibility of the project's own pages: a private project's events reach its members only. */
export function eventRoutes({
  events,
  access,
  hiddenProjects,
}: {
  events: EventStore;
  access: AccessService;
  hiddenProjects: HiddenProjects;
}): Router {
  const router = express.Router();
  const { list, forFeature, search } = adminContract.events;
  // The stream is served by event-stream.ts.
  mountGuardedContract(
    router,
    { list, forFeature, search },
    { access },
    {
      list: async ({ query, req }) => {
        const page = await events.list({
          hiddenProjects: await hiddenProjects(req),
          project: query.project,
          featureName: query.feature,
          offset: query.offset,
          limit: query.limit,
        });
        return { status: 200, body: { version: 1 as const, events: page.events.map(toEventEntry), totalEvents: page.total } };
      },
      forFeature: async ({ params, query, req }) => {
        const page = await events.list({
          hiddenProjects: await hiddenProjects(req),
          featureName: params.featureName,
          offset: query.offset,
          limit: query.limit,
        });
        return {
          status: 200,
          body: {
            version: 1 as const,
            toggleName: params.featureName,
            events: page.events.map(toEventEntry),
            totalEvents: page.total,
          },
        };
      },
      search: async ({ query, req }) => {
        const page = await events.list({
          hiddenProjects: await hiddenProjects(req),
          project: query.project,
          featureName: query.feature,
          type: query.type,
          createdBy: query.createdBy,
          from: query.from ? new Date(`${query.from}T00:00:00.000Z`) : undefined,
          to: query.to ? endOfDay(query.to) : undefined,
          offset: query.offset,
          limit: query.limit,
        });
        return { status: 200, body: { events: page.events.map(toEventEntry), total: page.total } };
      },
    },
  );
  return router;
}
