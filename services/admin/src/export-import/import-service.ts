import { randomUUID } from "node:crypto";
import type {
  ChangeRequestChange,
  ContextField,
  FeatureType,
  FeatureVariant,
  ImportToggles,
  ImportValidation,
  Segment,
  StrategyFields,
  Tag,
  TagType,
  UpsertContextFieldBody,
  CreateTagTypeBody,
} from "@vexil/contracts";
import { VARIANT_WEIGHT_TOTAL } from "@vexil/contracts";
import { NameExistsError, ValidationError } from "@vexil/errors";
import type { Logger } from "@vexil/logger";
import type { Actor } from "../access/actor.js";
import { dependencyProblem } from "../feature-dependencies/dependency-rules.js";
import type { Transaction, UnitOfWork } from "../events/unit-of-work.js";
import { environmentOf, type FeatureDocument, type FeatureStrategyDocument } from "../features/feature-model.js";
import { toStrategyResponse } from "../features/feature-response.js";
import { metadataOf } from "../features/feature-response.js";
import type { CreateFeature } from "../features/feature-service.js";
import { strategyParameters } from "../features/flag-environment-service.js";
import type { FlagWritePath } from "../features/flag-write-path.js";
import { spreadVariantWeights } from "../features/variant-weights.js";
import type { ProjectDocument } from "../projects/project-store.js";
import { checkImport, planImport, type ImportPlan, type ImportTarget } from "./import-checks.js";
import { chunkImport, importChunkLimits, importLeaseMs, ImportRuns, type ImportProgressStore } from "./import-progress.js";

/** The flag operations an import uses; all of them join the import's unit of work. */
export interface ImportFeatures extends FlagWritePath {
  find(name: string, session?: Transaction["session"]): Promise<FeatureDocument | null>;
  count(project: string): Promise<number>;
  children(name: string, session?: Transaction["session"]): Promise<string[]>;
  create(project: string, input: CreateFeature, actor: Actor): Promise<FeatureDocument>;
  assertValidStrategy(input: StrategyFields & { name: string }, project: string): Promise<void>;
}

export interface ImportDeps {
  features: ImportFeatures;
  projects: { find(id: string): Promise<ProjectDocument | null>; environmentViews(id: string): Promise<{ name: string }[]> };
  strategies: { list(): Promise<{ name: string; editable: boolean }[]> };
  context: { list(): Promise<ContextField[]>; create(input: UpsertContextFieldBody, actor: Actor): Promise<unknown> };
  segments: { list(): Promise<Segment[]> };
  tags: {
    listTypes(): Promise<TagType[]>;
    createType(input: CreateTagTypeBody, actor: Actor): Promise<unknown>;
    replaceFeatureTags(tx: Transaction, feature: FeatureDocument, tags: readonly Tag[], actor: Actor): Promise<void>;
  };
  changeRequests: {
    isEnabled(project: string, environment: string): Promise<boolean>;
    addChanges(project: string, environment: string, changes: ChangeRequestChange[], actor: Actor): Promise<unknown>;
  };
  progress: ImportProgressStore;
  unitOfWork: UnitOfWork;
  clock: () => Date;
  logger: Logger;
  /** `importChunkLimits` unless given. */
  chunkLimits?: { flags: number; items: number };
  /** `importLeaseMs` unless given. */
  leaseMs?: number;
}

type ImportedStrategy = ImportToggles["data"]["featureStrategies"][number];

/** Unleash's strategy ids: ULIDs, which sort by creation time. */
const ulid = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * A flag's strategies in the order SDKs should see them: by `sortOrder` when the export has it
 * (Vexil's does). Unleash's export has none and lists them in no set order, but its ids are ULIDs:
 * ordering by id gives the order they were created in, which is Unleash's order unless they were
 * reordered. Otherwise, the order of the data.
 */
function inEvaluationOrder(strategies: ImportedStrategy[]): ImportedStrategy[] {
  if (strategies.every((s) => s.sortOrder !== undefined)) return [...strategies].sort((a, b) => a.sortOrder! - b.sortOrder!);
  if (strategies.every((s) => s.id !== undefined && ulid.test(s.id))) return [...strategies].sort((a, b) => (a.id! < b.id! ? -1 : 1));
  return strategies;
}

const byName = new Intl.Collator("en-US").compare;

/**
 * Exported variants carry the weights their server spread; spreading them again could move the
 * remainder's extra points to other variants and bucket some users differently. A list whose
 * weights already add up to 1000 is kept as it is (in name order, as stored); others are spread.
 */
function asExported(variants: FeatureVariant[]): FeatureVariant[] {
  // The same rules either way: a variable variant, fix weights below 1000.
  const spread = spreadVariantWeights(variants);
  if (variants.reduce((sum, v) => sum + v.weight, 0) !== VARIANT_WEIGHT_TOTAL) return spread;
  return variants.map((v) => ({ ...v, weightType: v.weightType ?? "variable" })).sort((a, b) => byName(a.name, b.name));
}

/** One import as it is written: the request, its plan, and how the environment changes are made. */
interface ImportJob {
  input: ImportToggles;
  plan: ImportPlan;
  actor: Actor;
  viaChangeRequest: boolean;
}

/** Which parts of the import a chunk's transaction writes besides its flags. */
interface ChunkRole {
  /** The first chunk of the import: tag types and context fields, which later chunks' flags use. */
  first: boolean;
  /** The first chunk of a run that goes on in more chunks: checks every later flag's strategies and dependency before any is written. */
  checksAll: boolean;
  /** The last chunk: a change request's proposal and the `features-imported` event. */
  last: boolean;
}

/**
 * `POST /api/admin/features-batch/validate` and `/import`. The import checks everything first (the
 * same list `/validate` answers), then writes. An import within one chunk (`importChunkLimits`) is
 * ONE unit of work: every service it calls joins it, so a failure at any step leaves nothing behind.
 * A larger one is written a chunk per transaction under its progress record (`ImportRuns`), so no
 * transaction outgrows MongoDB's limits or holds concurrent writes for long; each flag is written
 * whole in one chunk, and the first chunk checks every later flag's strategies and dependency.
 */
export class ImportService {
  private readonly chunkLimits: { flags: number; items: number };
  private readonly runs: ImportRuns;

  constructor(private readonly deps: ImportDeps) {
    this.chunkLimits = deps.chunkLimits ?? importChunkLimits;
    const { progress: store, unitOfWork, clock, logger } = deps;
    this.runs = new ImportRuns({ store, unitOfWork, clock, logger, leaseMs: deps.leaseMs ?? importLeaseMs });
  }

  async validate(input: ImportToggles): Promise<ImportValidation> {
    const target = await this.target(input);
    return checkImport(input, planImport(input, target), target);
  }

  async import(input: ImportToggles, actor: Actor): Promise<void> {
    const target = await this.target(input);
    const plan = planImport(input, target);
    const { errors } = checkImport(input, plan, target);
    if (errors.length > 0) {
      const details = errors.map((e) => ({ path: "body.data", message: `${e.message} ${e.affectedItems.join(", ")}`.trim() }));
      throw new ValidationError(`The import was refused, nothing was written: ${details.map((d) => d.message).join(" | ")}`, details);
    }
    const job: ImportJob = {
      input,
      plan,
      actor,
      viaChangeRequest: await this.deps.changeRequests.isEnabled(input.project, input.environment),
    };
    const chunks = chunkImport(plan, this.chunkLimits);
    if (chunks.length <= 1) {
      const names = plan.data.features.map((f) => f.name);
      await this.deps.unitOfWork.run((tx) => this.writeChunk(tx, job, names, { first: true, checksAll: false, last: true }));
      return;
    }
    await this.importInChunks(job, chunks);
  }

  /** Claims the project's progress record, then writes each chunk not yet written, moving the record on in the chunk's own transaction. */
  private async importInChunks(job: ImportJob, chunks: string[][]): Promise<void> {
    const record = await this.runs.claim(job.input, job.actor, chunks);
    const { _id: project, importId } = record;
    const start = record.chunksDone;
    for (let i = start; i < record.chunks.length; i++) {
      const last = i === record.chunks.length - 1;
      try {
        await this.deps.unitOfWork.run(async (tx) => {
          await this.writeChunk(tx, job, record.chunks[i]!, { first: i === 0, checksAll: i === start, last });
          if (!(await this.deps.progress.advance(project, importId, i + 1, this.deps.clock(), tx.session, last))) {
            throw new NameExistsError(`The import into project ${project} was taken over by another request; this one stopped`);
          }
        });
      } catch (err) {
        await this.runs.stopped(record, i, err);
      }
    }
    this.deps.logger.info(
      { importId, project, environment: record.environment, chunks: record.chunks.length, resumedAt: start > 0 ? start : undefined },
      "import complete",
    );
  }

  /** One transaction's part of the import: the named flags whole, and what `role` adds. */
  private async writeChunk(tx: Transaction, job: ImportJob, names: readonly string[], role: ChunkRole): Promise<void> {
    const { input, plan, actor } = job;
    const wanted = new Set(names);
    // A flag archived in the target since the import started is left out, as at the start.
    const features = plan.data.features.filter((f) => wanted.has(f.name));
    const docs = await this.upsertFlags(tx, input.project, features, actor);
    if (role.first) await this.importTagTypes(input, actor);
    for (const doc of docs.values()) {
      const tags = (plan.data.featureTags ?? [])
        .filter((t) => t.featureName === doc._id)
        .map((t) => ({ type: t.tagType ?? "simple", value: t.tagValue }));
      await this.deps.tags.replaceFeatureTags(tx, doc, tags, actor);
    }
    if (role.first) await this.importContextFields(input, actor);
    if (role.checksAll) await this.checkAhead(tx, job, wanted);
    if (!job.viaChangeRequest) await this.writeEnvironmentChanges(tx, input, plan, features, actor);
    else if (role.last) await this.proposeEnvironmentChanges(tx, input, plan, actor);
    await this.importDependencies(tx, input.project, plan, wanted, actor);
    if (role.last) await tx.record({ type: "features-imported", actor, project: input.project, environment: input.environment });
  }

  /**
   * Before a chunked import writes its first chunk: the strategies and dependencies of the flags of
   * later chunks are checked as the chunks will write them, so bad data stops it with nothing written.
   */
  private async checkAhead(tx: Transaction, job: ImportJob, inThisChunk: ReadonlySet<string>): Promise<void> {
    const { input, plan } = job;
    const later = plan.data.features.filter((f) => !inThisChunk.has(f.name));
    if (!job.viaChangeRequest) for (const feature of later) await this.assertStrategies(plan, feature.name, input.project);
    const parentOf = new Map(
      (plan.data.dependencies ?? []).flatMap((d) => (d.dependencies[0] ? [[d.feature, d.dependencies[0].feature]] : [])),
    );
    const imported = new Set(plan.data.features.map((f) => f.name));
    const node = async (name: string) => {
      const doc = await this.deps.features.find(name, tx.session);
      if (!doc && !imported.has(name)) return null;
      const parent = parentOf.get(name);
      return {
        name,
        project: doc?.project ?? input.project,
        archived: doc?.archived ?? false,
        dependencies: parent ? [{ feature: parent, enabled: true, variants: [] }] : (doc?.dependencies ?? []),
      };
    };
    const parents = new Set(parentOf.values());
    for (const [childName, parentName] of parentOf) {
      if (inThisChunk.has(childName)) continue;
      const child = (await node(childName))!;
      const problem = dependencyProblem(
        { ...child, dependencies: [] },
        await node(parentName),
        parents.has(childName) ||
          // an existing child that the import gives another parent stops being one
          (await this.deps.features.children(childName, tx.session)).some((c) => (parentOf.get(c) ?? childName) === childName),
      );
      if (problem) throw this.dependencyError(childName, problem);
    }
  }

  private async target(input: ImportToggles): Promise<ImportTarget> {
    const project = await this.deps.projects.find(input.project);
    const named = [
      ...new Set([
        ...input.data.features.map((f) => f.name),
        ...(input.data.dependencies ?? []).flatMap((d) => d.dependencies.map((p) => p.feature)),
      ]),
    ];
    const existing = new Map<string, FeatureDocument>();
    for (const name of named) {
      const doc = await this.deps.features.find(name);
      if (doc) existing.set(name, doc);
    }
    return {
      project,
      projectEnvironments: project ? (await this.deps.projects.environmentViews(project._id)).map((e) => e.name) : [],
      existing,
      liveInProject: project ? await this.deps.features.count(project._id) : 0,
      strategies: await this.deps.strategies.list(),
      contextFields: await this.deps.context.list(),
      segments: await this.deps.segments.list(),
    };
  }

  /** Creates the new flags and updates the metadata of the existing ones; returns every flag as the transaction sees it. */
  private async upsertFlags(
    tx: Transaction,
    project: string,
    features: ImportToggles["data"]["features"],
    actor: Actor,
  ): Promise<Map<string, FeatureDocument>> {
    const docs = new Map<string, FeatureDocument>();
    for (const feature of features) {
      const type = feature.type as FeatureType | undefined;
      if (!(await this.deps.features.find(feature.name, tx.session))) {
        await this.deps.features.create(
          project,
          { name: feature.name, type, description: feature.description, impressionData: feature.impressionData },
          actor,
        );
      }
      const { before, after } = await this.deps.features.change(tx, actor, feature.name, (current) => ({
        ...current,
        type: type ?? current.type,
        description: feature.description === undefined ? current.description : feature.description,
        impressionData: feature.impressionData ?? current.impressionData,
        stale: feature.stale ?? current.stale,
      }));
      if (JSON.stringify(metadataOf(before)) !== JSON.stringify(metadataOf(after))) {
        await tx.record({
          type: "feature-metadata-updated",
          actor,
          project,
          featureName: feature.name,
          data: metadataOf(after),
          preData: metadataOf(before),
        });
      }
      docs.set(feature.name, after);
    }
    return docs;
  }

  private async importTagTypes(input: ImportToggles, actor: Actor): Promise<void> {
    const known = new Set((await this.deps.tags.listTypes()).map((t) => t.name));
    const used = new Set((input.data.featureTags ?? []).map((t) => t.tagType ?? "simple"));
    for (const type of input.data.tagTypes) {
      if (known.has(type.name) || !used.has(type.name)) continue;
      await this.deps.tags.createType({ name: type.name, description: type.description, icon: type.icon, color: type.color }, actor);
      known.add(type.name);
    }
  }

  private async importContextFields(input: ImportToggles, actor: Actor): Promise<void> {
    const known = new Set((await this.deps.context.list()).map((f) => f.name));
    for (const field of input.data.contextFields ?? []) {
      if (known.has(field.name)) continue;
      await this.deps.context.create(
        {
          name: field.name,
          description: field.description,
          stickiness: field.stickiness,
          sortOrder: field.sortOrder,
          legalValues: field.legalValues,
        },
        actor,
      );
      known.add(field.name);
    }
  }

  /** The strategy as written in the target: its segments mapped by name, its place kept. */
  private strategyInput(plan: ImportPlan, strategy: ImportedStrategy, position: number): StrategyFields & { name: string } {
    return {
      name: strategy.name,
      title: strategy.title ?? null,
      disabled: strategy.disabled ?? false,
      sortOrder: strategy.sortOrder ?? position,
      constraints: strategy.constraints ?? [],
      variants: strategy.variants ?? [],
      parameters: strategy.parameters ?? {},
      segments: (strategy.segments ?? []).map((id) => plan.segmentIds.get(id)!),
    };
  }

  private strategiesOf(plan: ImportPlan, name: string): (StrategyFields & { name: string })[] {
    return inEvaluationOrder(plan.data.featureStrategies.filter((s) => s.featureName === name)).map((s, i) =>
      this.strategyInput(plan, s, i),
    );
  }

  private environmentEntry(plan: ImportPlan, name: string) {
    return (plan.data.featureEnvironments ?? []).find((e) => (e.featureName ?? e.name) === name);
  }

  /** Unleash's import in an environment: its strategies replaced, variants set when given, on/off as exported. */
  private async writeEnvironmentChanges(
    tx: Transaction,
    input: ImportToggles,
    plan: ImportPlan,
    features: ImportToggles["data"]["features"],
    actor: Actor,
  ): Promise<void> {
    const { project, environment } = input;
    for (const feature of features) {
      const inputs = await this.assertStrategies(plan, feature.name, project);
      const entry = this.environmentEntry(plan, feature.name);
      const variants: FeatureVariant[] | undefined = entry?.variants && entry.variants.length > 0 ? asExported(entry.variants) : undefined;
      const created: FeatureStrategyDocument[] = inputs.map((strategy) => ({
        id: randomUUID(),
        name: strategy.name,
        title: strategy.title ?? null,
        disabled: strategy.disabled ?? false,
        sortOrder: strategy.sortOrder ?? 0,
        constraints: strategy.constraints ?? [],
        variants: strategy.variants ?? [],
        parameters: strategyParameters(strategy, feature.name),
        segments: strategy.segments ?? [],
        createdAt: this.deps.clock(),
      }));
      const { before, after } = await this.deps.features.change(tx, actor, feature.name, (doc) => {
        const env = environmentOf(doc, environment) ?? { enabled: false, strategies: [], variants: [], lastSeenAt: null };
        doc.environments[environment] = {
          ...env,
          enabled: entry?.enabled ?? env.enabled,
          strategies: created,
          variants: variants ?? env.variants,
        };
        return doc;
      });
      const base = { actor, project, environment, featureName: feature.name };
      for (const removed of environmentOf(before, environment)?.strategies ?? []) {
        await tx.record({ ...base, type: "feature-strategy-remove", preData: toStrategyResponse(feature.name, removed) });
      }
      for (const strategy of created)
        await tx.record({ ...base, type: "feature-strategy-add", data: toStrategyResponse(feature.name, strategy) });
      if (variants) {
        await tx.record({
          ...base,
          type: "feature-environment-variants-updated",
          data: { variants },
          preData: { variants: environmentOf(before, environment)?.variants ?? [] },
        });
      }
      const wasEnabled = environmentOf(before, environment)?.enabled ?? false;
      const isEnabled = environmentOf(after, environment)?.enabled ?? false;
      if (wasEnabled !== isEnabled)
        await tx.record({ ...base, type: isEnabled ? "feature-environment-enabled" : "feature-environment-disabled" });
    }
  }

  /** The flag's strategies as the import writes them, each checked as a direct change would be. */
  private async assertStrategies(plan: ImportPlan, name: string, project: string): Promise<(StrategyFields & { name: string })[]> {
    const inputs = this.strategiesOf(plan, name);
    for (const [i, strategy] of inputs.entries()) {
      await this.atPath(`body.data.featureStrategies (${name} #${i + 1})`, () => this.deps.features.assertValidStrategy(strategy, project));
    }
    return inputs;
  }

  /** With change requests on: the same changes, proposed in the importer's draft (as Unleash Enterprise does). */
  private async proposeEnvironmentChanges(tx: Transaction, input: ImportToggles, plan: ImportPlan, actor: Actor): Promise<void> {
    const changes: ChangeRequestChange[] = [];
    for (const feature of plan.data.features) {
      const doc = await this.deps.features.find(feature.name, tx.session);
      for (const existing of environmentOf(doc!, input.environment)?.strategies ?? []) {
        changes.push({ action: "deleteStrategy", feature: feature.name, payload: { id: existing.id } });
      }
      for (const strategy of this.strategiesOf(plan, feature.name)) {
        changes.push({
          action: "addStrategy",
          feature: feature.name,
          payload: { ...strategy, constraints: strategy.constraints ?? [], parameters: strategy.parameters ?? {} },
        });
      }
      const entry = this.environmentEntry(plan, feature.name);
      if (entry?.variants && entry.variants.length > 0)
        changes.push({ action: "patchVariant", feature: feature.name, payload: { variants: entry.variants } });
      if (entry) changes.push({ action: "updateEnabled", feature: feature.name, payload: { enabled: entry.enabled } });
    }
    if (changes.length > 0) await this.deps.changeRequests.addChanges(input.project, input.environment, changes, actor);
  }

  /** Each child listed gets exactly the parent the data names, under the same rules as a direct change. */
  private async importDependencies(
    tx: Transaction,
    project: string,
    plan: ImportPlan,
    children: ReadonlySet<string>,
    actor: Actor,
  ): Promise<void> {
    for (const { feature: childName, dependencies } of plan.data.dependencies ?? []) {
      const parentEntry = dependencies[0];
      if (!parentEntry || !children.has(childName)) continue;
      const child = await this.deps.features.find(childName, tx.session);
      const parent = await this.deps.features.find(parentEntry.feature, tx.session);
      const node = (doc: FeatureDocument) => ({
        name: doc._id,
        project: doc.project,
        archived: doc.archived,
        dependencies: doc.dependencies,
      });
      const others = child!.dependencies.filter((d) => d.feature !== parentEntry.feature);
      const problem = dependencyProblem(
        { ...node(child!), dependencies: others },
        parent && node(parent),
        (await this.deps.features.children(childName, tx.session)).length > 0,
      );
      if (problem) throw this.dependencyError(childName, problem);
      const enabled = parentEntry.enabled ?? true;
      const dependency = { feature: parentEntry.feature, enabled, variants: enabled ? (parentEntry.variants ?? []) : [] };
      await this.deps.features.change(tx, actor, childName, (doc) => ({ ...doc, dependencies: [dependency] }));
      await tx.record({ type: "feature-dependency-added", actor, project, featureName: childName, data: dependency });
    }
  }

  private dependencyError(childName: string, problem: string): ValidationError {
    return new ValidationError(`Invalid body.data.dependencies (${childName}): ${problem}`, [
      { path: "body.data.dependencies", message: problem },
    ]);
  }

  /** A service's 400 names the import's field it came from. */
  private async atPath(path: string, check: () => Promise<void>): Promise<void> {
    try {
      await check();
    } catch (err) {
      if (err instanceof ValidationError) throw new ValidationError(`Invalid ${path}: ${err.message}`, [{ path, message: err.message }]);
      throw err;
    }
  }
}
