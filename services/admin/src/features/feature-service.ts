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
 * Everything else here serves the feature, strategy and variant routes.
 */
import { randomUUID } from "node:crypto";
// The package is CommonJS: under node its functions are on the default export only (a namespace
// import finds none of them).
import jsonPatch, { type Operation as JsonPatchOperation } from "fast-json-patch";
import {
  VARIANT_WEIGHT_TOTAL,
  featureVariantListSchema,
  checkedStrategyFieldsSchema,
  type Constraint,
  type Feature,
  type FeatureVariant,
  type JsonPatchItem,
  type StrategyFields,
  type StrategyVariant,
  type Tag,
} from "@vexil/contracts";
import { NameExistsError, NotFoundError, OperationDeniedError, ValidationError } from "@vexil/errors";
import type { Actor } from "../access/access-service.js";
import type { StoreSession } from "@vexil/store";
import type { ConstraintValidator } from "../constraints/constraint-validation.js";
import type { Transaction, UnitOfWork } from "../events/unit-of-work.js";
import { avatarUrl } from "../users/avatar.js";
import { assertMatchesNaming, assertUrlFriendly } from "./feature-naming.js";
import { environmentOf, type FeatureDocument, type FeatureEnvironmentDocument, type FeatureStrategyDocument } from "./feature-model.js";
import type { FlagProjects } from "./flag-projects.js";
import { sortStrategies, toFeatureResponse, toStrategyResponse } from "./feature-response.js";
import type { FavoriteStore, FeatureMutation, FeatureQuery, FeatureStore } from "./feature-store.js";
import { spreadVariantWeights } from "./variant-weights.js";

/** Unleash's flag types and their expected lifetimes in days (null: permanent). */
export const featureTypes = {
  release: 40,
  experiment: 40,
  operational: 7,
  "kill-switch": null,
  permission: null,
  sunset: 90,
} as const satisfies Record<string, number | null>;
export type FeatureType = keyof typeof featureTypes;
export const featureTypeNames = Object.keys(featureTypes) as [FeatureType, ...FeatureType[]];

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

export type StrategyInput = StrategyFields;

/** The segment rules a strategy must meet (SegmentService): the per-strategy limit, existing, global or the project's own. */
export interface StrategySegmentRules {
  assertUsableInStrategy(ids: readonly number[], project: string): Promise<void>;
}

/** Tags of a flag, answered by the tag slice; none until it is wired. */
export interface FeatureTagSource {
  forFeature(name: string): Promise<Tag[]>;
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

/** JSON-patch paths a user may change on a flag (Unleash changes variants and the rest elsewhere). */
const patchablePaths = new Set(["/description", "/type", "/stale", "/impressionData"]);

const emptyEnvironment = (): FeatureEnvironmentDocument => ({ enabled: false, strategies: [], variants: [], lastSeenAt: null });

export class FeatureService {
  private readonly hooks: FeatureChangeHook[] = [];
  private readonly guards: FeatureChangeGuard[] = [];
  private readonly removalSteps: FeatureRemovalStep[] = [];

  constructor(
    private readonly deps: {
      features: FeatureStore;
      favorites: FavoriteStore;
      projects: FlagProjects;
      strategyExists: (name: string) => Promise<boolean>;
      segments: StrategySegmentRules;
      validateConstraints: ConstraintValidator;
      tags?: FeatureTagSource;
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

  async toResponse(doc: FeatureDocument, { userId }: { userId?: number } = {}): Promise<Feature> {
    const [environments, tags, children, favorites] = await Promise.all([
      this.deps.projects.environmentViews(doc.project),
      this.deps.tags?.forFeature(doc._id) ?? Promise.resolve([]),
      this.children(doc._id),
      userId === undefined ? Promise.resolve(new Set<string>()) : this.deps.favorites.favorites(userId),
    ]);
    return toFeatureResponse(doc, { environments, tags, children, favorite: favorites.has(doc._id) });
  }

  async toResponses(docs: FeatureDocument[], options: { userId?: number } = {}): Promise<Feature[]> {
    return Promise.all(docs.map((doc) => this.toResponse(doc, options)));
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
      async (doc) => {
        // Mutations may change the copy they get in place; hooks must see the flag as it was.
        const before = structuredClone(doc);
        return withCollaborator(this.runHooks(before, await mutate(doc), now), actor, now);
      },
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

  /** Endpoint 3: RFC 6902 on the flag's metadata; any bad operation refuses the whole patch. */
  async patch(project: string, name: string, operations: JsonPatchItem[], actor: Actor): Promise<FeatureDocument> {
    const current = await this.getInProject(project, name);
    for (const [i, op] of operations.entries()) {
      for (const path of [op.path, op.from].filter((p): p is string => p !== undefined)) {
        if (path.includes("/variants")) {
          throw new OperationDeniedError(
            "Changing variants is done via PATCH operation to /api/admin/projects/:projectId/features/:featureName/environments/:environment/variants",
          );
        }
        if (!patchablePaths.has(path)) {
          throw new ValidationError(`Invalid body.${i}.path: "${path}" cannot be patched; allowed: ${[...patchablePaths].join(", ")}`, [
            { path: `body.${i}.path`, message: `Allowed paths: ${[...patchablePaths].join(", ")}` },
          ]);
        }
      }
    }
    const patched = applyJsonPatch(metadataOf(current), operations);
    const problems: string[] = [];
    if (typeof patched.description !== "string" && patched.description !== null && patched.description !== undefined)
      problems.push("description must be a string");
    if (!featureTypeNames.includes(patched.type as FeatureType)) problems.push(`type must be one of ${featureTypeNames.join(", ")}`);
    if (typeof patched.stale !== "boolean" && patched.stale !== undefined) problems.push("stale must be a boolean");
    if (typeof patched.impressionData !== "boolean" && patched.impressionData !== undefined)
      problems.push("impressionData must be a boolean");
    if (problems.length > 0) throw new ValidationError(`Invalid patch result: ${problems.join("; ")}`);
    return this.update(
      project,
      name,
      {
        description: (patched.description as string | null | undefined) ?? null,
        type: patched.type as FeatureType,
        stale: (patched.stale as boolean | undefined) ?? false,
        impressionData: (patched.impressionData as boolean | undefined) ?? false,
      },
      actor,
    );
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

  /** Endpoint 12: a copy under a new name, with strategies, variants and dependencies, every environment off. */
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

  // ---- environments ---------------------------------------------------------------------------

  /**
   * Endpoint 4 and its `/off`. Enabling an environment without enabled strategies either
   * re-activates the disabled ones (`shouldActivateDisabledStrategies`) or adds the project
   * environment's default strategy, as Unleash does.
   */
  async setEnvironmentEnabled(
    project: string,
    name: string,
    environment: string,
    enabled: boolean,
    actor: Actor,
    { shouldActivateDisabledStrategies = false } = {},
  ): Promise<FeatureDocument> {
    // An archived flag exists, so Unleash refuses the switch (400) rather than not finding it.
    const stored = await this.deps.features.get(name);
    if (stored?.archived && stored.project === project) throw new ValidationError("Cannot perform this operation on archived features");
    await this.getInProject(project, name);
    await this.assertProjectEnvironment(project, name, environment);
    const defaultStrategy = enabled ? await this.deps.projects.defaultStrategy(project, environment) : undefined;
    return this.deps.unitOfWork.run(async (tx) => {
      const added: FeatureStrategyDocument[] = [];
      const activated: FeatureStrategyDocument[] = [];
      const { before, after } = await this.change(tx, actor, name, (doc) => {
        const env = environmentOf(doc, environment) ?? emptyEnvironment();
        if (enabled && !env.strategies.some((s) => !s.disabled)) {
          if (env.strategies.length > 0 && shouldActivateDisabledStrategies) {
            env.strategies = env.strategies.map((s) => {
              const on = { ...s, disabled: false };
              activated.push(on);
              return on;
            });
          } else if (defaultStrategy) {
            const strategy = this.newStrategy(name, defaultStrategy, env.strategies);
            env.strategies = [...env.strategies, strategy];
            added.push(strategy);
          }
        }
        env.enabled = enabled;
        doc.environments[environment] = env;
        return doc;
      });
      for (const strategy of added) {
        await tx.record({
          type: "feature-strategy-add",
          actor,
          project,
          environment,
          featureName: name,
          data: toStrategyResponse(name, strategy),
        });
      }
      for (const strategy of activated) {
        await tx.record({
          type: "feature-strategy-update",
          actor,
          project,
          environment,
          featureName: name,
          data: toStrategyResponse(name, strategy),
        });
      }
      if ((environmentOf(before, environment)?.enabled ?? false) !== enabled) {
        await tx.record({
          type: enabled ? "feature-environment-enabled" : "feature-environment-disabled",
          actor,
          project,
          environment,
          featureName: name,
        });
      }
      return after;
    });
  }

  // ---- strategies -----------------------------------------------------------------------------

  async listStrategies(project: string, name: string, environment: string): Promise<FeatureStrategyDocument[]> {
    const doc = await this.getInProject(project, name);
    await this.assertProjectEnvironment(project, name, environment);
    return sortStrategies(environmentOf(doc, environment)?.strategies ?? []);
  }

  async getStrategy(project: string, name: string, environment: string, id: string): Promise<FeatureStrategyDocument> {
    const strategy = (await this.listStrategies(project, name, environment)).find((s) => s.id === id);
    if (!strategy) throw new NotFoundError(`Could not find strategy ${id} of ${name} in ${environment}`);
    return strategy;
  }

  async addStrategy(
    project: string,
    name: string,
    environment: string,
    input: StrategyInput,
    actor: Actor,
  ): Promise<FeatureStrategyDocument> {
    await this.getInProject(project, name);
    await this.assertProjectEnvironment(project, name, environment);
    await this.assertValidStrategy(input, project);
    return this.deps.unitOfWork.run(async (tx) => {
      let created: FeatureStrategyDocument | undefined;
      await this.change(tx, actor, name, (doc) => {
        const env = environmentOf(doc, environment) ?? emptyEnvironment();
        created = this.newStrategy(name, input, env.strategies);
        env.strategies = [...env.strategies, created];
        doc.environments[environment] = env;
        return doc;
      });
      const strategy = created as FeatureStrategyDocument;
      await tx.record({
        type: "feature-strategy-add",
        actor,
        project,
        environment,
        featureName: name,
        data: toStrategyResponse(name, strategy),
      });
      return strategy;
    });
  }

  /** PUT replaces the strategy's fields; PATCH hands the patched strategy here too. */
  async updateStrategy(
    project: string,
    name: string,
    environment: string,
    id: string,
    input: StrategyInput,
    actor: Actor,
  ): Promise<FeatureStrategyDocument> {
    const current = await this.getStrategy(project, name, environment, id);
    await this.assertValidStrategy(input, project);
    return this.deps.unitOfWork.run(async (tx) => {
      const updated: FeatureStrategyDocument = {
        ...current,
        name: input.name,
        title: input.title ?? null,
        disabled: input.disabled ?? false,
        sortOrder: input.sortOrder ?? current.sortOrder,
        constraints: input.constraints ?? [],
        variants: spreadVariantWeights(input.variants ?? []),
        parameters: input.parameters ?? {},
        segments: input.segments ?? [],
      };
      await this.change(tx, actor, name, (doc) => {
        const env = environmentOf(doc, environment) as FeatureEnvironmentDocument;
        env.strategies = env.strategies.map((s) => (s.id === id ? updated : s));
        return doc;
      });
      await tx.record({
        type: "feature-strategy-update",
        actor,
        project,
        environment,
        featureName: name,
        data: toStrategyResponse(name, updated),
        preData: toStrategyResponse(name, current),
      });
      return updated;
    });
  }

  async patchStrategy(
    project: string,
    name: string,
    environment: string,
    id: string,
    operations: JsonPatchItem[],
    actor: Actor,
  ): Promise<FeatureStrategyDocument> {
    const current = await this.getStrategy(project, name, environment, id);
    const { id: _id, featureName: _f, ...fields } = toStrategyResponse(name, current);
    const parsed = checkedStrategyFieldsSchema.safeParse(applyJsonPatch(fields, operations));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ValidationError(`Invalid patch result: ${issue?.path.join(".")} ${issue?.message}`);
    }
    return this.updateStrategy(project, name, environment, id, parsed.data, actor);
  }

  async deleteStrategy(project: string, name: string, environment: string, id: string, actor: Actor): Promise<void> {
    const current = await this.getStrategy(project, name, environment, id);
    await this.deps.unitOfWork.run(async (tx) => {
      let disabledEnvironment = false;
      await this.change(tx, actor, name, (doc) => {
        const env = environmentOf(doc, environment) as FeatureEnvironmentDocument;
        env.strategies = env.strategies.filter((s) => s.id !== id);
        // As Unleash: an environment with no strategies left is turned off.
        if (env.strategies.length === 0 && env.enabled) {
          env.enabled = false;
          disabledEnvironment = true;
        }
        return doc;
      });
      await tx.record({
        type: "feature-strategy-remove",
        actor,
        project,
        environment,
        featureName: name,
        preData: toStrategyResponse(name, current),
      });
      if (disabledEnvironment) {
        await tx.record({ type: "feature-environment-disabled", actor, project, environment, featureName: name });
      }
    });
  }

  async setStrategySortOrder(
    project: string,
    name: string,
    environment: string,
    order: { id: string; sortOrder: number }[],
    actor: Actor,
  ): Promise<void> {
    const strategies = await this.listStrategies(project, name, environment);
    const known = new Set(strategies.map((s) => s.id));
    const unknown = order.find((o) => !known.has(o.id));
    if (unknown) throw new NotFoundError(`Could not find strategy ${unknown.id} of ${name} in ${environment}`);
    await this.deps.unitOfWork.run(async (tx) => {
      const sortOrders = new Map(order.map((o) => [o.id, o.sortOrder]));
      await this.change(tx, actor, name, (doc) => {
        const env = environmentOf(doc, environment) as FeatureEnvironmentDocument;
        env.strategies = env.strategies.map((s) => ({ ...s, sortOrder: sortOrders.get(s.id) ?? s.sortOrder }));
        return doc;
      });
      await tx.record({ type: "strategy-order-changed", actor, project, environment, featureName: name, data: order });
    });
  }

  // ---- variants -------------------------------------------------------------------------------

  async getVariants(project: string, name: string, environment: string): Promise<{ version: number; variants: FeatureVariant[] }> {
    const doc = await this.getInProject(project, name);
    await this.assertProjectEnvironment(project, name, environment);
    return { version: 1, variants: environmentOf(doc, environment)?.variants ?? [] };
  }

  /** Endpoint 6: replaces every variant of the flag in the environments, weights spread to 1000. */
  async setVariants(
    project: string,
    name: string,
    environments: string[],
    variants: FeatureVariant[],
    actor: Actor,
  ): Promise<{ version: number; variants: FeatureVariant[] }> {
    await this.getInProject(project, name);
    for (const environment of environments) await this.assertProjectEnvironment(project, name, environment);
    const spread = spreadVariantWeights(variants);
    await this.deps.unitOfWork.run(async (tx) => {
      const { before } = await this.change(tx, actor, name, (doc) => {
        for (const environment of environments) {
          const env = environmentOf(doc, environment) ?? emptyEnvironment();
          env.variants = spread;
          doc.environments[environment] = env;
        }
        return doc;
      });
      for (const environment of unique(environments)) {
        await tx.record({
          type: "feature-environment-variants-updated",
          actor,
          project,
          environment,
          featureName: name,
          data: { variants: spread },
          preData: { variants: environmentOf(before, environment)?.variants ?? [] },
        });
      }
    });
    return { version: 1, variants: spread };
  }

  async patchVariants(
    project: string,
    name: string,
    environment: string,
    operations: JsonPatchItem[],
    actor: Actor,
  ): Promise<{ version: number; variants: FeatureVariant[] }> {
    const { variants } = await this.getVariants(project, name, environment);
    const parsed = featureVariantListSchema.safeParse(applyJsonPatch(variants, operations));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ValidationError(`Invalid patch result: ${[...(issue?.path ?? [])].join(".")} ${issue?.message}`);
    }
    return this.setVariants(project, name, [environment], parsed.data, actor);
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

  private async assertProjectEnvironment(project: string, name: string, environment: string): Promise<void> {
    const environments = await this.deps.projects.environmentViews(project);
    if (!environments.some((e) => e.name === environment)) {
      throw new NotFoundError(`Could not find environment ${environment} for feature ${name} in project ${project}`);
    }
  }

  /** The checks every strategy write in `project` makes; change requests run them when a strategy is proposed. */
  async assertValidStrategy(input: StrategyInput, project: string): Promise<void> {
    if (!(await this.deps.strategyExists(input.name))) {
      throw new ValidationError(`Strategy ${input.name} is not defined`, [{ path: "name", message: "Unknown strategy name" }]);
    }
    await this.deps.validateConstraints(input.constraints ?? [], "constraints");
    await this.deps.segments.assertUsableInStrategy(input.segments ?? [], project);
    assertValidStrategyVariants(input.variants ?? []);
  }

  private newStrategy(featureName: string, input: StrategyInput, siblings: FeatureStrategyDocument[]): FeatureStrategyDocument {
    return {
      id: randomUUID(),
      name: input.name,
      title: input.title ?? null,
      disabled: input.disabled ?? false,
      sortOrder: input.sortOrder ?? Math.max(-1, ...siblings.map((s) => s.sortOrder)) + 1,
      constraints: (input.constraints ?? []) as Constraint[],
      variants: spreadVariantWeights(input.variants ?? []),
      parameters: strategyParameters(input, featureName),
      segments: input.segments ?? [],
      createdAt: this.deps.clock(),
    };
  }

  private async recordMetadataEvents(tx: Transaction, actor: Actor, before: FeatureDocument, after: FeatureDocument): Promise<void> {
    const base = { actor, project: after.project, featureName: after._id };
    await tx.record({ ...base, type: "feature-metadata-updated", data: metadataOf(after), preData: metadataOf(before) });
    if (before.stale !== after.stale)
      await tx.record({ ...base, type: after.stale ? "feature-stale-on" : "feature-stale-off", data: { stale: after.stale } });
  }
}

/** Strategy variants must add up the way feature variants do; they are stored spread and sorted as Unleash stores them. */
export function assertValidStrategyVariants(variants: readonly StrategyVariant[]): void {
  if (variants.length === 0) return;
  const names = new Set<string>();
  for (const variant of variants) {
    if (names.has(variant.name))
      throw new ValidationError(`Variant names must be unique; "${variant.name}" appears more than once`, [
        { path: "variants", message: "Duplicate name" },
      ]);
    names.add(variant.name);
  }
  if (!variants.some((v) => v.weightType === "variable")) {
    throw new ValidationError("There must be at least one strategy variant with weightType 'variable'", [
      { path: "variants", message: "No variable variant" },
    ]);
  }
  const fixed = variants.filter((v) => v.weightType === "fix").reduce((sum, v) => sum + v.weight, 0);
  if (fixed >= VARIANT_WEIGHT_TOTAL) {
    throw new ValidationError(`The weights of 'fix' strategy variants must sum to less than ${VARIANT_WEIGHT_TOTAL}`, [
      { path: "variants", message: "Fix weights too high" },
    ]);
  }
}

/** A strategy's parameters on a flag: a flexible rollout without a group id groups by the flag's name. */
export function strategyParameters(strategy: Pick<StrategyInput, "name" | "parameters">, featureName: string): Record<string, string> {
  const parameters = { ...strategy.parameters };
  if (strategy.name === "flexibleRollout" && !parameters.groupId) parameters.groupId = featureName;
  return parameters;
}

/** RFC 6902 on a copy of `doc`; any bad operation refuses the whole patch with a 400. */
function applyJsonPatch<T>(doc: T, operations: JsonPatchItem[]): T {
  try {
    return jsonPatch.applyPatch(structuredClone(doc), operations as JsonPatchOperation[], true, false).newDocument;
  } catch (err) {
    throw new ValidationError(`Invalid patch: ${(err as Error).message.split("\n")[0]}`);
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

/** The flag without its environments: what metadata events carry and JSON patches see. */
export function metadataOf(doc: FeatureDocument): Record<string, unknown> {
  return {
    name: doc._id,
    project: doc.project,
    type: doc.type,
    description: doc.description,
    stale: doc.stale,
    impressionData: doc.impressionData,
    archived: doc.archived,
    createdAt: doc.createdAt.toISOString(),
  };
}

function unique(names: string[]): string[] {
  return [...new Set(names)];
}
