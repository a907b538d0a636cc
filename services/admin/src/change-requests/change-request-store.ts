import type { ChangeRequestState } from "@vexil/contracts";
import { NameExistsError, NotFoundError } from "@vexil/errors";
import { DuplicateKeyError, type Collection, type StoreEngine, type StoreSession } from "@vexil/store";
import type { Actor } from "../access/actor.js";
import {
  personOf,
  type ChangeRequestDocument,
  type ChangeRequestSettingsDocument,
  type Comment,
  type Schedule,
} from "./change-request-model.js";

export interface ChangeRequestQuery {
  project?: string;
  environment?: string;
  state?: ChangeRequestState | ChangeRequestState[];
  createdBy?: number;
}

export interface ChangeRequestStore {
  nextId(): Promise<number>;
  nextChangeId(): Promise<number>;
  get(id: number, session?: StoreSession): Promise<ChangeRequestDocument | null>;
  list(query: ChangeRequestQuery, session?: StoreSession): Promise<ChangeRequestDocument[]>;
  insert(doc: ChangeRequestDocument, session: StoreSession): Promise<void>;
  replace(doc: ChangeRequestDocument, session: StoreSession): Promise<void>;
  delete(id: number, session: StoreSession): Promise<void>;
  /** Scheduled requests whose time has come (or all pending, for rescheduling at start). */
  pendingSchedules(): Promise<ChangeRequestDocument[]>;
  /**
   * Takes a due scheduled request for this instance: true for exactly one caller, so several admin
   * instances apply it at most once. The claim expires, so a crashed claimer does not block it.
   */
  claimSchedule(id: number, schedule: Schedule, claimant: string, now: Date, leaseMs: number): Promise<boolean>;
  settings(project: string, session?: StoreSession): Promise<ChangeRequestSettingsDocument[]>;
  setting(project: string, environment: string, session?: StoreSession): Promise<ChangeRequestSettingsDocument | null>;
  putSetting(doc: ChangeRequestSettingsDocument, session: StoreSession): Promise<void>;
}

/** A request of this project; NotFoundError when there is none (or it belongs to another project). */
export async function loadInProject(
  store: Pick<ChangeRequestStore, "get">,
  project: string,
  id: number,
  session?: StoreSession,
): Promise<ChangeRequestDocument> {
  const request = await store.get(id, session);
  if (!request || request.project !== project) throw new NotFoundError(`Could not find change request ${id} in project ${project}`);
  return request;
}

/** A comment by `actor`, numbered from the same sequence as changes. */
export async function newComment(store: Pick<ChangeRequestStore, "nextChangeId">, text: string, actor: Actor, now: Date): Promise<Comment> {
  return { id: await store.nextChangeId(), text: text.trim(), createdBy: personOf(actor), createdAt: now };
}

interface ClaimFields {
  claim?: { by: string; until: Date } | null;
}

export async function createChangeRequestStore(engine: StoreEngine): Promise<ChangeRequestStore> {
  const requests: Collection<ChangeRequestDocument & ClaimFields> = engine.collection("change_requests");
  const settings: Collection<ChangeRequestSettingsDocument> = engine.collection("change_request_settings");
  await requests.createIndex({ project: 1, state: 1 });
  await requests.createIndex({ "createdBy.id": 1 });
  // One draft per author, project and environment: new changes join it. Kept by the index, since two
  // proposals at once would each find no draft; on MongoDB the second then conflicts and runs again.
  await requests.createIndex(
    { project: 1, environment: 1, "createdBy.id": 1 },
    { unique: true, name: "one_draft_per_author", partialFilterExpression: { state: "Draft" } },
  );
  await settings.createIndex({ project: 1, environment: 1 }, { unique: true });

  const filterOf = (query: ChangeRequestQuery) => {
    const filter: Record<string, unknown> = {};
    if (query.project !== undefined) filter.project = query.project;
    if (query.environment !== undefined) filter.environment = query.environment;
    if (query.state !== undefined) filter.state = Array.isArray(query.state) ? { $in: query.state } : query.state;
    if (query.createdBy !== undefined) filter["createdBy.id"] = query.createdBy;
    return filter;
  };

  return {
    nextId: () => engine.nextSequence("change_requests"),
    nextChangeId: () => engine.nextSequence("change_request_changes"),
    get: (id, session) => requests.findOne({ _id: id }, { session, projection: { claim: 0 } }),
    list: (query, session) => requests.find(filterOf(query), { sort: { _id: -1 }, session, projection: { claim: 0 } }),
    async insert(doc, session) {
      await requests.insertOne(doc, { session }).catch((err: unknown) => {
        if (!(err instanceof DuplicateKeyError) || err.index !== "one_draft_per_author") throw err;
        throw new NameExistsError(
          `You already have a draft change request for ${doc.environment} in project ${doc.project}: send the changes again to add them to it`,
        );
      });
    },
    async replace(doc, session) {
      await requests.replaceOne({ _id: doc._id }, doc, { session });
    },
    async delete(id, session) {
      await requests.deleteOne({ _id: id }, { session });
    },
    pendingSchedules: () => requests.find({ state: "Scheduled", "schedule.status": "pending" }, { projection: { claim: 0 } }),
    async claimSchedule(id, schedule, claimant, now, leaseMs) {
      const result = await requests.updateOne(
        {
          _id: id,
          state: "Scheduled",
          "schedule.status": "pending",
          "schedule.scheduledAt": schedule.scheduledAt,
          $or: [{ claim: null }, { claim: { $exists: false } }, { "claim.until": { $lt: now } }],
        },
        { $set: { claim: { by: claimant, until: new Date(now.getTime() + leaseMs) } } },
      );
      return result.modifiedCount === 1;
    },
    settings: (project, session) => settings.find({ project }, { session }),
    setting: (project, environment, session) => settings.findOne({ project, environment }, { session }),
    async putSetting(doc, session) {
      await settings.replaceOne({ _id: doc._id }, doc, { upsert: true, session });
    },
  };
}
