/**
 * FeatureService: the flag model. Other slices read and change flags only through it.
 *
 * Reads
 * - `get(name)` → FeatureDocument (NotFoundError), `find(name)` → FeatureDocument | null
 * - `getInProject(project, name)` → FeatureDocument, 404 when it lives in another project
 * - `list({ project?, archived? })`, `listAll()` (every non-archived flag, for snapshots)
 * - `children(name)` → names of flags depending on it
 * - `toResponse(doc, { userId? })` / `toResponses(docs, ...)` → the spec's Feature (see
 *   `toFeatureResponse` in feature-response.ts for the pure mapping)
 *
 * Changes made by other slices (lifecycle, dependencies, tags, change requests)
 * - `change(tx, actor, name, mutate)`: inside `unitOfWork.run`, reads the flag in the transaction,
 *   applies `mutate(copy) → next`, runs the change hooks, bumps `version`, records the actor as the
 *   most recent collaborator and writes it. Returns `{ before, after }`. Record the event yourself.
 * - `addChangeHook(hook)`: `hook(before, after) → after'` runs inside every flag write (create
 *   included, `before` null), e.g. to move the lifecycle stage when an environment is enabled.
 * - `addChangeGuard(guard)`: `await guard(before, after)` runs inside every change's transaction
 *   and may refuse it by throwing (change requests protect environments this way).
 *
 * Everything else here is a flag's lifecycle as the feature routes drive it (create, update, patch,
 * stale, archive, revive, delete, favorite, clone); FlagEnvironmentService holds what a flag does in
 * each environment (enabled, strategies, variants).
 */
import { randomUUID } from "node:crypto";
import type { Feature, FeatureType, FlagLink, JsonPatchItem, Tag } from "@vexil/contracts";
import { NameExistsError, NotFoundError, ValidationError } from "@vexil/errors";
import type { StoreSession } from "@vexil/store";
import type { Actor } from "../access/actor.js";
import type { Transaction, UnitOfWork } from "../events/unit-of-work.js";
import { avatarUrl } from "../users/avatar.js";
import { assertMatchesNaming, assertUrlFriendly } from "./feature-naming.js";
import type { FeatureDocument } from "./feature-model.js";
import { metadataOf, toFeatureResponse } from "./feature-response.js";
import type { FavoriteStore, FeatureMutation, FeatureQuery, FeatureSearch, FeatureStore } from "./feature-store.js";
import type { FlagProjects } from "./flag-projects.js";
import { patchedMetadata } from "./metadata-patch.js";

export interface CreateFeature {
  name: string;
  type?: FeatureType;
  description?: string | null;
  impressionData?: boolean;
}

export interface UpdateFeature {
  description?: string | null;
  type?: FeatureType;
  stale?: boolean;
  impressionData?: boolean;
  archived?: boolean;
}

/** Tags of a flag, answered by the tag slice; none until it is wired. */
export interface FeatureTagSource {
  /** Flag name → its tags, for many flags in one read. */
  forFeatures(names: readonly string[]): Promise<Map<string, Tag[]>>;
  /** Flag name → which of these tags (`type:value`) it carries, for flags carrying any of them. */
  flagsTagged(tags: readonly Tag[]): Promise<Map<string, Set<string>>>;
}

/** URLs on a flag, answered by the flag-link slice; none until it is wired. */
export interface FeatureLinkSource {
  /** Flag name → its links, oldest first, for many flags in one read. */
  forFeatures(names: readonly string[]): Promise<Map<string, FlagLink[]>>;
}

/**
 * Work that commits with an archive or a hard delete, inside its transaction (dependencies of
 * archived flags, tags of deleted ones): if it fails, the flags stay as they were.
 */
export interface FeatureRemovalStep {
  archived?(tx: Transaction, names: string[], actor: Actor): Promise<void>;
  deleted?(tx: Transaction, names: string[]): Promise<void>;
}

export type FeatureChangeHook = (before: FeatureDocument | null, after: FeatureDocument, now: Date) => FeatureDocument;
/** Runs inside every flag change's transaction once the change is known; throwing refuses it. */
export type FeatureChangeGuard = (before: FeatureDocument, after: FeatureDocument) => Promise<void>;

export class FeatureService {
  private readonly hooks: FeatureChangeHook[] = [];
  private readonly guards: FeatureChangeGuard[] = [];
  private readonly removalSteps: FeatureRemovalStep[] = [];

  constructor(
    private readonly deps: {
      features: FeatureStore;
      favorites: FavoriteStore;
      projects: FlagProjects;
      tags?: FeatureTagSource;
      links?: FeatureLinkSource;
      unitOfWork: UnitOfWork;
      clock: () => Date;
    },
  ) {}

  addChangeHook(hook: FeatureChangeHook): void {
    this.hooks.push(hook);
  }

  /** E.g. change requests refuse direct changes to environments that require them. */
  addChangeGuard(guard: FeatureChangeGuard): void {
    this.guards.push(guard);
  }

  addRemovalStep(step: FeatureRemovalStep): void {
    this.removalSteps.push(step);
  }

  // ---- reads ----------------------------------------------------------------------------------

  /** The flag as the running transaction sees it (the given session, or the enclosing unit of work's). */
  find(name: string, session?: StoreSession): Promise<FeatureDocument | null> {
    return this.deps.features.get(name, session ?? this.deps.unitOfWork.session);
  }

  async get(name: string): Promise<FeatureDocument> {
    const doc = await this.deps.features.get(name);
    if (!doc) throw new NotFoundError(`Could not find feature flag ${name}`);
    return doc;
  }

  async getInProject(project: string, name: string, { archived = false } = {}): Promise<FeatureDocument> {
    await this.deps.projects.get(project);
    const doc = await this.deps.features.get(name);
    if (!doc || doc.project !== project || doc.archived !== archived) {
      throw new NotFoundError(`Could not find ${archived ? "archived " : ""}feature flag ${name} in project ${project}`);
    }
    return doc;
  }

  list(query: FeatureQuery = {}): Promise<FeatureDocument[]> {
    return this.deps.features.list(query);
  }

  /** Flag name → which of these tags (`type:value`) it carries, for flags carrying any of them. */
  flagsTagged(tags: readonly Tag[]): Promise<Map<string, Set<string>>> {
    return this.deps.tags?.flagsTagged(tags) ?? Promise.resolve(new Map());
  }

  /** A page of the live flags matching `search`, and how many match. */
  search(search: FeatureSearch, page: { offset: number; limit: number }): Promise<{ docs: FeatureDocument[]; total: number }> {
    return this.deps.features.search(search, page);
  }

  listAll(): Promise<FeatureDocument[]> {
    return this.deps.features.list({ archived: false });
  }

  /**
   * SDK metrics reported these flags in use in an environment. Usage, not a change: no event and
   * no version bump.
   */
  async recordSeen(environment: string, names: readonly string[], at: Date): Promise<void> {
    if (names.length > 0) await this.deps.features.setLastSeen(environment, names, at);
  }

  async children(name: string, session?: StoreSession): Promise<string[]> {
    return (await this.deps.features.children(name, session)).map((doc) => doc._id);
  }

  async toResponse(doc: FeatureDocument, options: { userId?: number } = {}): Promise<Feature> {
    return (await this.toResponses([doc], options))[0]!;
  }

  /** Reads what the responses add to the flags once for all of them, not once per flag (projects of thousands). */
  async toResponses(docs: FeatureDocument[], { userId }: { userId?: number } = {}): Promise<Feature[]> {
    if (docs.length === 0) return [];
    const names = docs.map((doc) => doc._id);
    const projects = [...new Set(docs.map((doc) => doc.project))];
    const [views, tags, links, children, favorites] = await Promise.all([
      Promise.all(projects.map((project) => this.deps.projects.environmentViews(project))),
      this.deps.tags?.forFeatures(names) ?? Promise.resolve(new Map<string, Tag[]>()),
      this.deps.links?.forFeatures(names) ?? Promise.resolve(new Map<string, FlagLink[]>()),
      this.deps.features.childrenOf(names),
      userId === undefined ? Promise.resolve(new Set<string>()) : this.deps.favorites.favorites(userId),
    ]);
    const environmentsOf = new Map(projects.map((project, i) => [project, views[i]!]));
    return docs.map((doc) =>
      toFeatureResponse(doc, {
        environments: environmentsOf.get(doc.project)!,
        tags: tags.get(doc._id) ?? [],
        links: links.get(doc._id) ?? [],
        children: children.get(doc._id) ?? [],
        favorite: favorites.has(doc._id),
      }),
    );
  }

  // ---- the write path shared by every change ---------------------------------------------------

  async change(
    tx: Transaction,
    actor: Actor,
    name: string,
    mutate: FeatureMutation,
  ): Promise<{ before: FeatureDocument; after: FeatureDocument }> {
    const now = this.deps.clock();
    const result = await this.deps.features.update(
      name,
      async (doc, stored) => withCollaborator(this.runHooks(stored, await mutate(doc, stored), now), actor, now),
      tx.session,
    );
    for (const guard of this.guards) await guard(result.before, result.after);
    return result;
  }

  private runHooks(before: FeatureDocument | null, after: FeatureDocument, now: Date): FeatureDocument {
    return this.hooks.reduce((doc, hook) => hook(before, doc, now), after);
  }

  // ---- flags ----------------------------------------------------------------------------------

  async create(project: string, input: CreateFeature, actor: Actor): Promise<FeatureDocument> {
    assertUrlFriendly(input.name, "name");
    if (input.name.length > 100)
      throw new ValidationError(`Feature flag names are at most 100 characters`, [{ path: "name", message: "Too long" }]);
    const projectDoc = await this.deps.projects.get(project);
    return this.deps.unitOfWork.run(async (tx) => {
      await this.assertNameFree(input.name, tx);
      assertMatchesNaming(input.name, projectDoc.featureNaming);
      await this.assertBelowLimit(project, projectDoc.featureLimit, tx);
      const now = this.deps.clock();
      const doc = this.runHooks(
        null,
        {
          _id: input.name,
          project,
          type: input.type ?? "release",
          description: input.description ?? null,
          stale: false,
          impressionData: input.impressionData ?? false,
          archived: false,
          archivedAt: null,
          createdAt: now,
          createdBy: personOf(actor),
          environments: {},
          dependencies: [],
          lifecycle: [{ stage: "initial", enteredStageAt: now }],
          collaborators: [{ ...personOf(actor), changedAt: now }],
          version: 1,
        },
        now,
      );
      await this.deps.features.insert(doc, tx.session);
      await tx.record({ type: "feature-created", actor, project, featureName: doc._id, data: metadataOf(doc) });
      return doc;
    });
  }

  /** PUT: the metadata fields Unleash lets a user change (`archived: true` archives). */
  async update(project: string, name: string, input: UpdateFeature, actor: Actor): Promise<FeatureDocument> {
    await this.getInProject(project, name);
    if (input.archived) {
      await this.archive(project, [name], actor);
      return this.get(name);
    }
    return this.deps.unitOfWork.run((tx) => this.updateMetadata(tx, actor, name, input));
  }

  /** Marks several flags of a project stale (or not) at once: all or none. */
  async setStaleMany(project: string, names: string[], stale: boolean, actor: Actor): Promise<void> {
    await this.deps.projects.get(project);
    await this.deps.unitOfWork.run(async (tx) => {
      for (const name of unique(names)) {
        const doc = await this.deps.features.get(name, tx.session);
        if (!doc || doc.project !== project || doc.archived)
          throw new NotFoundError(`Could not find feature flag ${name} in project ${project}`);
        await this.updateMetadata(tx, actor, name, { stale });
      }
    });
  }

  private async updateMetadata(tx: Transaction, actor: Actor, name: string, input: UpdateFeature): Promise<FeatureDocument> {
    const { before, after } = await this.change(tx, actor, name, (doc) => ({
      ...doc,
      description: input.description === undefined ? doc.description : input.description,
      type: input.type ?? doc.type,
      stale: input.stale ?? doc.stale,
      impressionData: input.impressionData ?? doc.impressionData,
    }));
    await this.recordMetadataEvents(tx, actor, before, after);
    return after;
  }

  /** PATCH /api/admin/projects/:projectId/features/:featureName: RFC 6902 on the flag's metadata; any bad operation refuses the whole patch. */
  async patch(project: string, name: string, operations: JsonPatchItem[], actor: Actor): Promise<FeatureDocument> {
    return this.update(project, name, patchedMetadata(await this.getInProject(project, name), operations), actor);
  }

  async setStale(name: string, stale: boolean, actor: Actor, project?: string): Promise<FeatureDocument> {
    const doc = project ? await this.getInProject(project, name) : await this.get(name);
    return this.update(doc.project, name, { stale }, actor);
  }

  /** Archives flags of one project: they stop being served but can be revived. */
  async archive(project: string, names: string[], actor: Actor): Promise<void> {
    await this.deps.projects.get(project);
    await this.deps.unitOfWork.run(async (tx) => {
      for (const name of unique(names)) {
        const doc = await this.deps.features.get(name, tx.session);
        if (!doc || doc.project !== project || doc.archived)
          throw new NotFoundError(`Could not find feature flag ${name} in project ${project}`);
        const now = this.deps.clock();
        await this.change(tx, actor, name, (d) => ({
          ...d,
          archived: true,
          archivedAt: now,
          lifecycle: [...d.lifecycle, { stage: "archived" as const, enteredStageAt: now }],
        }));
        await tx.record({ type: "feature-archived", actor, project, featureName: name });
      }
      for (const step of this.removalSteps) await step.archived?.(tx, unique(names), actor);
    });
  }

  /**
   * Brings archived flags back, off in every environment (as Unleash revives them): what was on
   * months ago is not switched on again unseen. Strategies and variants stay as they were.
   */
  async revive(project: string | undefined, names: string[], actor: Actor): Promise<void> {
    if (project) await this.deps.projects.get(project);
    await this.deps.unitOfWork.run(async (tx) => {
      for (const name of unique(names)) {
        const doc = await this.getArchived(tx, project, name);
        if (!(await this.deps.projects.exists(doc.project))) throw new NotFoundError(`Project ${doc.project} of ${name} no longer exists`);
        await this.change(tx, actor, name, (d) => ({
          ...d,
          archived: false,
          archivedAt: null,
          environments: Object.fromEntries(Object.entries(d.environments).map(([env, settings]) => [env, { ...settings, enabled: false }])),
          lifecycle: d.lifecycle.at(-1)?.stage === "archived" ? d.lifecycle.slice(0, -1) : d.lifecycle,
        }));
        await tx.record({ type: "feature-revived", actor, project: doc.project, featureName: name });
      }
    });
  }

  /** Hard-deletes archived flags; live ones must be archived first. */
  async deleteArchived(project: string | undefined, names: string[], actor: Actor): Promise<void> {
    if (project) await this.deps.projects.get(project);
    await this.deps.unitOfWork.run(async (tx) => {
      for (const name of unique(names)) {
        const doc = await this.getArchived(tx, project, name);
        await this.deps.features.delete(name, tx.session);
        await this.deps.favorites.removeItem(name, tx.session);
        await tx.record({ type: "feature-deleted", actor, project: doc.project, featureName: name, preData: metadataOf(doc) });
      }
      for (const step of this.removalSteps) await step.deleted?.(tx, unique(names));
    });
  }

  async setFavorite(project: string, name: string, favorite: boolean, actor: Actor): Promise<void> {
    await this.getInProject(project, name);
    await this.deps.unitOfWork.run(async (tx) => {
      const changed = favorite
        ? await this.deps.favorites.add(actor.userId, name, this.deps.clock(), tx.session)
        : await this.deps.favorites.remove(actor.userId, name, tx.session);
      if (changed) {
        await tx.record({
          type: favorite ? "feature-favorited" : "feature-unfavorited",
          actor,
          project,
          featureName: name,
          data: { feature: name },
        });
      }
    });
  }

  /** POST .../features/:featureName/clone: a copy under a new name, with strategies, variants and dependencies, every environment off. */
  async clone(project: string, name: string, newName: string, replaceGroupId: boolean, actor: Actor): Promise<FeatureDocument> {
    const source = await this.getInProject(project, name);
    assertUrlFriendly(newName, "name");
    const projectDoc = await this.deps.projects.get(project);
    return this.deps.unitOfWork.run(async (tx) => {
      await this.assertNameFree(newName, tx);
      assertMatchesNaming(newName, projectDoc.featureNaming);
      await this.assertBelowLimit(project, projectDoc.featureLimit, tx);
      const now = this.deps.clock();
      const environments = Object.fromEntries(
        Object.entries(source.environments).map(([env, stored]) => [
          env,
          {
            enabled: false,
            lastSeenAt: null,
            variants: stored.variants,
            strategies: stored.strategies.map((s) => ({
              ...s,
              id: randomUUID(),
              createdAt: now,
              parameters: replaceGroupId && "groupId" in s.parameters ? { ...s.parameters, groupId: newName } : s.parameters,
            })),
          },
        ]),
      );
      const doc = this.runHooks(
        null,
        {
          ...source,
          _id: newName,
          stale: false,
          archived: false,
          archivedAt: null,
          createdAt: now,
          createdBy: personOf(actor),
          environments,
          lifecycle: [{ stage: "initial", enteredStageAt: now }],
          collaborators: [{ ...personOf(actor), changedAt: now }],
          version: 1,
        },
        now,
      );
      await this.deps.features.insert(doc, tx.session);
      await tx.record({ type: "feature-created", actor, project, featureName: newName, data: { ...metadataOf(doc), clonedFrom: name } });
      return doc;
    });
  }

  /** POST /features/validate: the name is free, and matches the project's pattern when one is given. */
  async assertNameAvailable(name: string, project?: string): Promise<void> {
    const existing = await this.deps.features.get(name);
    if (existing) throw new NameExistsError(`A flag named ${name} already exists in project ${existing.project}`);
    if (project) assertMatchesNaming(name, (await this.deps.projects.get(project)).featureNaming);
  }

  // ---- rules ----------------------------------------------------------------------------------

  /** An archived flag, of `project` when one is given, as the transaction sees it. */
  private async getArchived(tx: Transaction, project: string | undefined, name: string): Promise<FeatureDocument> {
    const doc = await this.deps.features.get(name, tx.session);
    if (!doc || !doc.archived || (project && doc.project !== project)) {
      throw new NotFoundError(`Could not find archived feature flag ${name}${project ? ` in project ${project}` : ""}`);
    }
    return doc;
  }

  private async assertNameFree(name: string, tx: Transaction): Promise<void> {
    const existing = await this.deps.features.get(name, tx.session);
    if (existing) {
      throw new NameExistsError(
        existing.archived
          ? `A flag named ${name} already exists in the archive of project ${existing.project}`
          : `A flag named ${name} already exists in project ${existing.project}`,
      );
    }
  }

  private async assertBelowLimit(project: string, limit: number | null, tx: Transaction): Promise<void> {
    if (limit === null) return;
    const live = await this.deps.features.count({ project, archived: false }, tx.session);
    if (live >= limit) {
      throw new NameExistsError(`You have reached the maximum number of feature flags for this project (${limit}).`);
    }
  }

  private async recordMetadataEvents(tx: Transaction, actor: Actor, before: FeatureDocument, after: FeatureDocument): Promise<void> {
    const base = { actor, project: after.project, featureName: after._id };
    await tx.record({ ...base, type: "feature-metadata-updated", data: metadataOf(after), preData: metadataOf(before) });
    if (before.stale !== after.stale)
      await tx.record({ ...base, type: after.stale ? "feature-stale-on" : "feature-stale-off", data: { stale: after.stale } });
  }
}

/** Who changed a flag, as its `createdBy` and collaborators show them (an avatar only for a known email). */
function personOf(actor: Actor): { id: number; name: string; imageUrl: string } {
  return { id: actor.userId, name: actor.name, imageUrl: actor.email ? avatarUrl(actor.email) : "" };
}

function withCollaborator(doc: FeatureDocument, actor: Actor, now: Date): FeatureDocument {
  const others = doc.collaborators.filter((c) => c.id !== actor.userId);
  return { ...doc, collaborators: [{ ...personOf(actor), changedAt: now }, ...others] };
}

function unique(names: string[]): string[] {
  return [...new Set(names)];
}
