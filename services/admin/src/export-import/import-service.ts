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
import { ValidationError } from "@vexil/errors";
import type { Actor } from "../access/actor.js";
import { dependencyProblem } from "../feature-dependencies/dependency-rules.js";
import type { Transaction, UnitOfWork } from "../events/unit-of-work.js";
import { environmentOf, type FeatureDocument, type FeatureStrategyDocument } from "../features/feature-model.js";
import { toStrategyResponse } from "../features/feature-response.js";
import { metadataOf } from "../features/feature-response.js";
import type { CreateFeature } from "../features/feature-service.js";
import { strategyParameters } from "../features/feature-strategy-service.js";
import type { FlagWritePath } from "../features/flag-write-path.js";
import { spreadVariantWeights } from "../features/variant-weights.js";
import type { ProjectDocument } from "../projects/project-store.js";
import { checkImport, planImport, type ImportPlan, type ImportTarget } from "./import-checks.js";

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
  unitOfWork: UnitOfWork;
  clock: () => Date;
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

/**
 * `POST /api/admin/features-batch/validate` and `/import`. The import checks everything first (the
 * same list `/validate` answers), then writes in ONE unit of work: every service it calls joins it,
 * so a failure at any step leaves nothing behind.
 */
export class ImportService {
  constructor(private readonly deps: ImportDeps) {}

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
    const viaChangeRequest = await this.deps.changeRequests.isEnabled(input.project, input.environment);
    await this.deps.unitOfWork.run(async (tx) => {
      const docs = await this.upsertFlags(tx, input.project, plan, actor);
      await this.importTagTypes(input, actor);
      for (const doc of docs.values()) {
        const tags = (plan.data.featureTags ?? [])
          .filter((t) => t.featureName === doc._id)
          .map((t) => ({ type: t.tagType ?? "simple", value: t.tagValue }));
        await this.deps.tags.replaceFeatureTags(tx, doc, tags, actor);
      }
      await this.importContextFields(input, actor);
      if (viaChangeRequest) await this.proposeEnvironmentChanges(tx, input, plan, actor);
      else await this.writeEnvironmentChanges(tx, input, plan, actor);
      await this.importDependencies(tx, input.project, plan, actor);
      await tx.record({ type: "features-imported", actor, project: input.project, environment: input.environment });
    });
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
  private async upsertFlags(tx: Transaction, project: string, plan: ImportPlan, actor: Actor): Promise<Map<string, FeatureDocument>> {
    const docs = new Map<string, FeatureDocument>();
    for (const feature of plan.data.features) {
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
  private async writeEnvironmentChanges(tx: Transaction, input: ImportToggles, plan: ImportPlan, actor: Actor): Promise<void> {
    const { project, environment } = input;
    for (const feature of plan.data.features) {
      const inputs = this.strategiesOf(plan, feature.name);
      for (const [i, strategy] of inputs.entries()) {
        await this.atPath(`body.data.featureStrategies (${feature.name} #${i + 1})`, () =>
          this.deps.features.assertValidStrategy(strategy, project),
        );
      }
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
  private async importDependencies(tx: Transaction, project: string, plan: ImportPlan, actor: Actor): Promise<void> {
    for (const { feature: childName, dependencies } of plan.data.dependencies ?? []) {
      const parentEntry = dependencies[0];
      if (!parentEntry) continue;
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
      if (problem) {
        throw new ValidationError(`Invalid body.data.dependencies (${childName}): ${problem}`, [
          { path: "body.data.dependencies", message: problem },
        ]);
      }
      const enabled = parentEntry.enabled ?? true;
      const dependency = { feature: parentEntry.feature, enabled, variants: enabled ? (parentEntry.variants ?? []) : [] };
      await this.deps.features.change(tx, actor, childName, (doc) => ({ ...doc, dependencies: [dependency] }));
      await tx.record({ type: "feature-dependency-added", actor, project, featureName: childName, data: dependency });
    }
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
