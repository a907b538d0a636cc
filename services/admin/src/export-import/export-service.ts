import type { ContextField, ExportQuery, ExportResult, Segment, Tag, TagType } from "@vexil/contracts";
import { ValidationError } from "@vexil/errors";
import type { Actor } from "../access/actor.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import { environmentOf, type FeatureDocument, type FeatureStrategyDocument } from "../features/feature-model.js";
import { sortStrategies } from "../features/feature-response.js";

/** What an export reads, each from the service that owns it. */
export interface ExportSources {
  features: { list(query: { project?: string; archived?: boolean }): Promise<FeatureDocument[]> };
  environments: { exists(name: string): Promise<boolean> };
  projects: { exists(id: string): Promise<boolean>; environmentViews(id: string): Promise<{ name: string }[]> };
  segments: { list(): Promise<Segment[]> };
  context: { list(): Promise<ContextField[]> };
  tags: { tagsOf(feature: string): Promise<Tag[]>; listTypes(): Promise<TagType[]> };
  unitOfWork: UnitOfWork;
}

/** The context fields a flag's strategies and variants refer to (constraints, stickiness, overrides). */
function contextNamesUsed(
  strategies: FeatureStrategyDocument[],
  variants: { stickiness?: string; overrides?: { contextName: string }[] }[],
) {
  const names = new Set<string>();
  for (const strategy of strategies) {
    for (const constraint of strategy.constraints) names.add(constraint.contextName);
    if (strategy.parameters.stickiness) names.add(strategy.parameters.stickiness);
    for (const variant of strategy.variants) names.add(variant.stickiness);
  }
  for (const variant of variants) {
    if (variant.stickiness) names.add(variant.stickiness);
    for (const override of variant.overrides ?? []) names.add(override.contextName);
  }
  return names;
}

/**
 * The variants with the ones holding a spread's remainder first: a server that spreads the weights
 * again on import (Unleash does, the first variable variants getting the extra points) then gives
 * each variant the weight it has here.
 */
function heavierFirst<V extends { weight: number }>(variants: readonly V[]): V[] {
  return [...variants].sort((a, b) => b.weight - a.weight);
}

/** What a `userWithId` strategy became in an export, in its title so it shows wherever the strategy does. */
const userWithIdExportTitle = "userWithId, exported as default with an IN userId constraint";

/**
 * Unleash 8 no longer defines `userWithId` and refuses an import naming it, so it leaves as what
 * it means: `default` for the listed user ids (an `IN userId` constraint next to its own ones).
 * Every SDK evaluates both the same; an import into Vexil keeps the constraint form.
 */
function asUnleash8Reads(strategy: FeatureStrategyDocument): FeatureStrategyDocument {
  if (strategy.name !== "userWithId") return strategy;
  const { userIds = "", ...parameters } = strategy.parameters;
  const values = userIds
    .split(",")
    .map((id) => id.trim())
    .filter((id) => id !== "");
  const userId = (operator: "IN" | "NOT_IN", ids: string[]) => ({
    contextName: "userId",
    operator,
    values: ids,
    inverted: false,
    caseInsensitive: false,
  });
  // Unleash refuses an empty IN list (and an empty value): without ids, a pair no context satisfies.
  const matchingIds = values.length > 0 ? [userId("IN", values)] : [userId("IN", ["-"]), userId("NOT_IN", ["-"])];
  return {
    ...strategy,
    name: "default",
    title: strategy.title ? `${strategy.title} (${userWithIdExportTitle})` : userWithIdExportTitle,
    parameters,
    constraints: [...strategy.constraints, ...matchingIds],
  };
}

/** `POST /api/admin/features-batch/export`: flags of one environment in Unleash's export format. */
export class ExportService {
  constructor(private readonly deps: ExportSources) {}

  /** `visible` says which projects the caller may see: flags of the others are left out. */
  async export(query: ExportQuery, actor: Actor, visible: (project: string) => Promise<boolean> = async () => true): Promise<ExportResult> {
    if (!(await this.deps.environments.exists(query.environment))) {
      throw new ValidationError(`Invalid body.environment: environment ${query.environment} does not exist`, [
        { path: "body.environment", message: "unknown environment" },
      ]);
    }
    const features: FeatureDocument[] = [];
    for (const feature of await this.select(query)) if (await visible(feature.project)) features.push(feature);
    const featureStrategies: ExportResult["featureStrategies"] = [];
    const featureEnvironments: NonNullable<ExportResult["featureEnvironments"]> = [];
    const featureTags: NonNullable<ExportResult["featureTags"]> = [];
    const usedContext = new Set<string>();
    const usedSegments = new Set<number>();
    for (const feature of features) {
      const inProject = (await this.deps.projects.environmentViews(feature.project)).some((e) => e.name === query.environment);
      const env = environmentOf(feature, query.environment);
      const strategies = inProject ? sortStrategies(env?.strategies ?? []).map(asUnleash8Reads) : [];
      for (const strategy of strategies) {
        featureStrategies.push({
          name: strategy.name,
          id: strategy.id,
          featureName: feature._id,
          title: strategy.title,
          parameters: strategy.parameters,
          constraints: strategy.constraints,
          variants: heavierFirst(strategy.variants),
          disabled: strategy.disabled,
          segments: strategy.segments,
          sortOrder: strategy.sortOrder,
        });
        for (const id of strategy.segments) usedSegments.add(id);
      }
      if (inProject) {
        const variants = env?.variants ?? [];
        featureEnvironments.push({
          enabled: env?.enabled ?? false,
          featureName: feature._id,
          environment: query.environment,
          variants: heavierFirst(variants),
          name: feature._id,
        });
        for (const name of contextNamesUsed(strategies, variants)) usedContext.add(name);
      }
      for (const tag of await this.deps.tags.tagsOf(feature._id)) {
        featureTags.push({ featureName: feature._id, tagType: tag.type, tagValue: tag.value });
      }
    }
    const tagTypesUsed = new Set(featureTags.map((tag) => tag.tagType));
    const result: ExportResult = {
      features: features.map((feature) => ({
        name: feature._id,
        description: feature.description,
        type: feature.type,
        project: feature.project,
        stale: feature.stale,
        impressionData: feature.impressionData,
        archived: feature.archived,
      })),
      featureStrategies,
      featureEnvironments,
      contextFields: (await this.deps.context.list())
        .filter((field) => usedContext.has(field.name))
        .map(({ name, description, stickiness, sortOrder, legalValues }) => ({ name, description, stickiness, sortOrder, legalValues })),
      featureTags,
      segments: (await this.deps.segments.list()).filter((s) => usedSegments.has(s.id)).map(({ id, name }) => ({ id, name })),
      tagTypes: (await this.deps.tags.listTypes()).filter((type) => tagTypesUsed.has(type.name)),
      dependencies: features
        .filter((feature) => feature.dependencies.length > 0)
        .map((feature) => ({
          feature: feature._id,
          dependencies: feature.dependencies.map(({ feature: parent, enabled, variants }) => ({ feature: parent, enabled, variants })),
        })),
    };
    await this.deps.unitOfWork.run((tx) =>
      tx.record({
        type: "features-exported",
        actor,
        environment: query.environment,
        data: { features: result.features.map((f) => f.name) },
      }),
    );
    return result;
  }

  /** The live flags the query names: by name (an empty list: all), by tag, or by project. */
  private async select(query: ExportQuery): Promise<FeatureDocument[]> {
    if (query.tag !== undefined) {
      const [type, value] = query.tag.includes(":")
        ? [query.tag.slice(0, query.tag.indexOf(":")), query.tag.slice(query.tag.indexOf(":") + 1)]
        : [undefined, query.tag];
      const live = await this.deps.features.list({ archived: false });
      const tagged: FeatureDocument[] = [];
      for (const feature of live) {
        const tags = await this.deps.tags.tagsOf(feature._id);
        if (tags.some((tag) => tag.value === value && (type === undefined || tag.type === type))) tagged.push(feature);
      }
      return tagged;
    }
    if (query.features !== undefined && query.features.length > 0) {
      const byName = new Map((await this.deps.features.list({ archived: false })).map((f) => [f._id, f]));
      const unknown = query.features.filter((name) => !byName.has(name));
      if (unknown.length > 0) {
        throw new ValidationError(`Invalid body.features: no live flag named ${unknown.join(", ")}`, [
          { path: "body.features", message: `unknown flags: ${unknown.join(", ")}` },
        ]);
      }
      return [...new Set(query.features)].map((name) => byName.get(name)!);
    }
    if (query.project !== undefined) {
      if (!(await this.deps.projects.exists(query.project))) {
        throw new ValidationError(`Invalid body.project: project ${query.project} does not exist`, [
          { path: "body.project", message: "unknown project" },
        ]);
      }
      return this.deps.features.list({ project: query.project, archived: false });
    }
    return this.deps.features.list({ archived: false });
  }
}
