import { NotFoundError } from "@vexil/errors";
import { copyDocument, type Collection, type StoreEngine, type StoreSession } from "@vexil/store";
import type { FeatureDocument } from "./feature-model.js";

export interface FeatureQuery {
  project?: string;
  archived?: boolean;
}

/** What the flag search filters on; every field given must hold. */
export interface FeatureSearch {
  projects?: readonly string[];
  types?: readonly string[];
  /** Stale flags, live ones, or (both given) either. */
  states?: ReadonlyArray<"stale" | "active">;
  /** A case-insensitive part of the name or the description. */
  text?: string;
  /** Only these flags (a tag filter's answer). */
  onlyNames?: readonly string[];
  /** None of these flags. */
  exceptNames?: readonly string[];
}

/** A change to one flag: gets a copy of the stored document to change, and the stored one (not to be changed); returns the new one. */
export type FeatureMutation = (feature: FeatureDocument, stored: FeatureDocument) => FeatureDocument | Promise<FeatureDocument>;

export interface FeatureStore {
  get(name: string, session?: StoreSession): Promise<FeatureDocument | null>;
  list(query: FeatureQuery, session?: StoreSession): Promise<FeatureDocument[]>;
  count(query: FeatureQuery, session?: StoreSession): Promise<number>;
  /** One page of the live flags a search matches, in list order, and how many match in all: filtered, counted and cut in the store. */
  search(search: FeatureSearch, page: { offset: number; limit: number }): Promise<{ docs: FeatureDocument[]; total: number }>;
  /** Flags that depend on `parent`. */
  children(parent: string, session?: StoreSession): Promise<FeatureDocument[]>;
  /** Parent name → names of the flags depending on it, for many parents in one read. */
  childrenOf(parents: readonly string[]): Promise<Map<string, string[]>>;
  /** Adds a flag; a live one writes its project's guard (see `createFeatureStore`). */
  insert(doc: FeatureDocument, session: StoreSession): Promise<void>;
  /**
   * Reads the flag inside the transaction, applies `mutate`, bumps `version` and writes it back.
   * Returns the stored result; NotFoundError when the flag does not exist.
   */
  update(name: string, mutate: FeatureMutation, session: StoreSession): Promise<{ before: FeatureDocument; after: FeatureDocument }>;
  delete(name: string, session: StoreSession): Promise<boolean>;
  /**
   * Stamps `lastSeenAt` on the flags' entries for an environment: usage data, so no version bump.
   * Any environment name works, `.` and `$` included.
   */
  setLastSeen(environment: string, names: readonly string[], at: Date): Promise<void>;
}

/** A user's favorite flag or project; `item` is its name. */
export interface FavoriteDocument {
  /** `<userId>:<item>` */
  _id: string;
  userId: number;
  item: string;
  createdAt: Date;
}

export interface FavoriteStore {
  /** False when it already was a favorite. */
  add(userId: number, item: string, now: Date, session: StoreSession): Promise<boolean>;
  /** False when it was not a favorite. */
  remove(userId: number, item: string, session: StoreSession): Promise<boolean>;
  /** Everyone's favorite of an item that is deleted. */
  removeItem(item: string, session: StoreSession): Promise<void>;
  favorites(userId: number): Promise<Set<string>>;
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function searchFilter(search: FeatureSearch): Record<string, unknown> {
  const filter: Record<string, unknown> = { archived: false };
  if (search.projects) filter.project = { $in: [...search.projects] };
  if (search.types) filter.type = { $in: [...search.types] };
  if (search.states) filter.stale = { $in: search.states.map((state) => state === "stale") };
  if (search.onlyNames) filter._id = { $in: [...search.onlyNames] };
  else if (search.exceptNames?.length) filter._id = { $nin: [...search.exceptNames] };
  if (search.text) {
    const pattern = { $regex: escapeRegex(search.text), $options: "i" };
    filter.$or = [{ _id: pattern }, { description: pattern }];
  }
  return filter;
}

function filterOf(query: FeatureQuery): Record<string, unknown> {
  const filter: Record<string, unknown> = {};
  if (query.project !== undefined) filter.project = query.project;
  if (query.archived !== undefined) filter.archived = query.archived;
  return filter;
}

/**
 * A project's feature limit is a count read before a write: two transactions adding a flag at
 * once could each count limit - 1 and both add one, since snapshot isolation checks writes, not
 * reads. So every transaction that adds a live flag to a project also writes that project's guard
 * document: two of them conflict on it, and the one that runs again counts the other's flag. (The
 * embedded engine runs transactions one at a time; there the guard is written and never contended.)
 */
interface ProjectGuardDocument {
  _id: string;
  liveFlagsAdded: number;
}

const isLive = (doc: Pick<FeatureDocument, "archived">) => !doc.archived;

export async function createFeatureStore(engine: StoreEngine): Promise<FeatureStore> {
  const features: Collection<FeatureDocument> = engine.collection("features");
  const guards: Collection<ProjectGuardDocument> = engine.collection("project_flag_guards");
  await features.createIndex({ project: 1, archived: 1 });
  await features.createIndex({ "dependencies.feature": 1 });
  const guard = (project: string, session: StoreSession) =>
    guards.updateOne({ _id: project }, { $inc: { liveFlagsAdded: 1 } }, { upsert: true, session });
  return {
    get: (name, session) => features.findOne({ _id: name }, { session }),
    list: (query, session) => features.find(filterOf(query), { sort: { createdAt: 1, _id: 1 }, session }),
    count: (query, session) => features.countDocuments(filterOf(query), { session }),
    async search(search, { offset, limit }) {
      const filter = searchFilter(search);
      const [docs, total] = await Promise.all([
        features.find(filter, { sort: { createdAt: 1, _id: 1 }, skip: offset, limit }),
        features.countDocuments(filter),
      ]);
      return { docs, total };
    },
    children: (parent, session) => features.find({ "dependencies.feature": parent }, { sort: { _id: 1 }, session }),
    async childrenOf(parents) {
      const wanted = new Set(parents);
      const byParent = new Map<string, string[]>();
      const docs = await features.find<Pick<FeatureDocument, "_id" | "dependencies">>(
        { "dependencies.feature": { $in: [...wanted] } },
        { sort: { _id: 1 }, projection: { _id: 1, dependencies: 1 } },
      );
      for (const child of docs) {
        for (const { feature } of child.dependencies ?? []) {
          if (wanted.has(feature)) byParent.set(feature, [...(byParent.get(feature) ?? []), child._id]);
        }
      }
      return byParent;
    },
    async insert(doc, session) {
      if (isLive(doc)) await guard(doc.project, session);
      await features.insertOne(doc, { session });
    },
    async update(name, mutate, session) {
      const before = await features.findOne({ _id: name }, { session });
      if (!before) throw new NotFoundError(`Could not find feature flag ${name}`);
      const changed = await mutate(copyDocument(before), before);
      const after: FeatureDocument = { ...changed, _id: before._id, version: before.version + 1 };
      // Revived, or moved into another project: the project's live count grows.
      if (isLive(after) && (!isLive(before) || before.project !== after.project)) await guard(after.project, session);
      await features.replaceOne({ _id: name }, after, { session });
      return { before, after };
    },
    async delete(name, session) {
      return (await features.deleteOne({ _id: name }, { session })).deletedCount === 1;
    },
    async setLastSeen(environment, names, at) {
      // The environment's name is data, not a field path (it may hold `.`): each flag's environments
      // are read and written back whole, in one transaction so no concurrent change is lost.
      await engine.withTransaction(async (session) => {
        const docs = await features.find<Pick<FeatureDocument, "_id" | "environments">>(
          { _id: { $in: [...names] } },
          { session, projection: { environments: 1 } },
        );
        for (const doc of docs) {
          if (!Object.hasOwn(doc.environments, environment)) continue;
          const environments = Object.fromEntries(
            Object.entries(doc.environments).map(([name, entry]) => [name, name === environment ? { ...entry, lastSeenAt: at } : entry]),
          );
          await features.updateOne({ _id: doc._id }, { $set: { environments } }, { session });
        }
      });
    },
  };
}

/** Favorites of one kind (flags, projects), each kind in its own collection. */
export async function createFavoriteStore(
  engine: StoreEngine,
  collection: "feature_favorites" | "project_favorites",
): Promise<FavoriteStore> {
  const favorites: Collection<FavoriteDocument> = engine.collection(collection);
  await favorites.createIndex({ userId: 1 });
  await favorites.createIndex({ item: 1 });
  const id = (userId: number, item: string) => `${userId}:${item}`;
  return {
    async add(userId, item, now, session) {
      const result = await favorites.updateOne(
        { _id: id(userId, item) },
        { $setOnInsert: { userId, item, createdAt: now } },
        { upsert: true, session },
      );
      return result.upsertedId !== null;
    },
    async remove(userId, item, session) {
      return (await favorites.deleteOne({ _id: id(userId, item) }, { session })).deletedCount === 1;
    },
    async removeItem(item, session) {
      await favorites.deleteMany({ item }, { session });
    },
    async favorites(userId) {
      const docs = await favorites.find({ userId });
      return new Set(docs.map((doc) => doc.item));
    },
  };
}
