import type { ActionMatch, ActionName, ActionSetEvent, ActionSetState, ReceivedSignal } from "@vexil/contracts";
import { DuplicateKeyError, type Collection, type StoreEngine, type StoreSession } from "@vexil/store";

export interface ActionDocument {
  id: number;
  action: ActionName;
  sortOrder: number;
  executionParams: { project: string; featureName: string; environment: string };
  createdAt: Date;
  createdByUserId: number;
}

export interface ActionSetDocument {
  _id: number;
  project: string;
  name: string;
  description: string | null;
  enabled: boolean;
  actorId: number;
  match: ActionMatch;
  actions: ActionDocument[];
  createdAt: Date;
  createdByUserId: number;
}

/** One run of an action set for one signal; unique per (signalId, actionSetId). */
export interface ActionSetEventDocument {
  _id: number;
  actionSetId: number;
  signalId: number;
  createdAt: Date;
  state: ActionSetState;
  signal: ReceivedSignal;
  /** The action set as it was when it ran, each action with what happened to it. */
  actionSet: ActionSetEvent["actionSet"];
  /**
   * Which admin instance is running this entry, and until when: while the state is "started", only
   * the owner writes to it, and another instance may take it over once the lease has expired.
   */
  lease: { owner: string; expiresAt: Date };
}

export interface ActionSetStore {
  nextId(): Promise<number>;
  nextActionId(): Promise<number>;
  list(project: string): Promise<ActionSetDocument[]>;
  get(project: string, id: number, session?: StoreSession): Promise<ActionSetDocument | null>;
  count(project: string, session?: StoreSession): Promise<number>;
  /** Enabled action sets that listen to this signal endpoint. */
  listeningTo(endpointId: number): Promise<ActionSetDocument[]>;
  usesActor(actorId: number): Promise<boolean>;
  insert(doc: ActionSetDocument, session: StoreSession): Promise<void>;
  replace(doc: ActionSetDocument, session: StoreSession): Promise<void>;
  delete(id: number, session: StoreSession): Promise<void>;
}

export interface ActionSetEventStore {
  /**
   * Records that this action set starts handling this signal; null when another admin instance
   * (or an earlier delivery) already did, so actions run at most once per signal.
   */
  claim(doc: Omit<ActionSetEventDocument, "_id">): Promise<ActionSetEventDocument | null>;
  /**
   * Records the actions' progress and extends the lease, or (with a final state) ends the run; false
   * when this owner no longer holds the entry (another instance took it over), so it must stop.
   */
  progress(
    id: number,
    owner: string,
    update: { actionSet: ActionSetEventDocument["actionSet"]; leaseExpiresAt: Date; state?: Exclude<ActionSetState, "started"> },
  ): Promise<boolean>;
  /** Entries still "started" whose lease ran out before `now`: their runner stopped mid-way. */
  expired(now: Date): Promise<ActionSetEventDocument[]>;
  /**
   * Moves an expired entry to a new owner, only if it is still as `entry` saw it (same owner, still
   * started, lease still expired), so of several instances trying at once exactly one succeeds.
   */
  takeOver(entry: ActionSetEventDocument, lease: ActionSetEventDocument["lease"], now: Date): Promise<boolean>;
  list(actionSetId: number, page: { limit: number; offset: number }): Promise<ActionSetEventDocument[]>;
  /** Deletes the finished runs started before `before` (one still running stays); how many went. */
  prune(before: Date): Promise<number>;
}

export async function createActionSetStore(engine: StoreEngine): Promise<ActionSetStore> {
  const sets: Collection<ActionSetDocument> = engine.collection("action_sets");
  await sets.createIndex({ project: 1, _id: 1 });
  await sets.createIndex({ "match.sourceId": 1 });
  return {
    nextId: () => engine.nextSequence("action_sets"),
    nextActionId: () => engine.nextSequence("actions"),
    list: (project) => sets.find({ project }, { sort: { _id: 1 } }),
    get: (project, id, session) => sets.findOne({ _id: id, project }, { session }),
    count: (project, session) => sets.countDocuments({ project }, { session }),
    listeningTo: (endpointId) =>
      sets.find({ enabled: true, "match.source": "signal-endpoint", "match.sourceId": endpointId }, { sort: { _id: 1 } }),
    usesActor: async (actorId) => (await sets.countDocuments({ actorId })) > 0,
    async insert(doc, session) {
      await sets.insertOne(doc, { session });
    },
    async replace(doc, session) {
      await sets.replaceOne({ _id: doc._id }, doc, { session });
    },
    async delete(id, session) {
      await sets.deleteOne({ _id: id }, { session });
    },
  };
}

export async function createActionSetEventStore(engine: StoreEngine): Promise<ActionSetEventStore> {
  const events: Collection<ActionSetEventDocument> = engine.collection("action_set_events");
  await events.createIndex({ signalId: 1, actionSetId: 1 }, { unique: true });
  await events.createIndex({ actionSetId: 1, _id: -1 });
  await events.createIndex({ state: 1, "lease.expiresAt": 1 });
  // Retention: the sweep reads only the runs older than its cutoff, on either engine.
  await events.createIndex({ createdAt: 1 });
  return {
    async claim(fields) {
      const doc = { _id: await engine.nextSequence("action_set_events"), ...fields };
      try {
        await events.insertOne(doc);
        return doc;
      } catch (err) {
        if (err instanceof DuplicateKeyError) return null;
        throw err;
      }
    },
    async progress(id, owner, { actionSet, leaseExpiresAt, state }) {
      const result = await events.updateOne(
        { _id: id, state: "started", "lease.owner": owner },
        { $set: { actionSet, "lease.expiresAt": leaseExpiresAt, ...(state ? { state } : {}) } },
      );
      return result.matchedCount === 1;
    },
    expired: (now) => events.find({ state: "started", "lease.expiresAt": { $lt: now } }, { sort: { _id: 1 } }),
    async takeOver(entry, lease, now) {
      const result = await events.updateOne(
        { _id: entry._id, state: "started", "lease.owner": entry.lease.owner, "lease.expiresAt": { $lt: now } },
        { $set: { lease } },
      );
      return result.modifiedCount === 1;
    },
    list: (actionSetId, { limit, offset }) => events.find({ actionSetId }, { sort: { _id: -1 }, skip: offset, limit }),
    async prune(before) {
      const finished: ActionSetState[] = ["success", "failed"];
      return (await events.deleteMany({ createdAt: { $lt: before }, state: { $in: finished } })).deletedCount;
    },
  };
}
