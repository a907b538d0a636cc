/**
 * FlagEnvironmentService: what a flag does in each environment of its project: turning the environment
 * on and off, its strategies (add, update, patch, delete, reorder) and its variants. Every change goes
 * through FeatureService's write path, so hooks, guards and collaborators apply as they do to any flag
 * change; each method records its own events.
 */
import { randomUUID } from "node:crypto";
import {
  VARIANT_WEIGHT_TOTAL,
  featureVariantListSchema,
  checkedStrategyFieldsSchema,
  type Constraint,
  type FeatureVariant,
  type JsonPatchItem,
  type StrategyFields,
  type StrategyVariant,
} from "@vexil/contracts";
import { NotFoundError, ValidationError } from "@vexil/errors";
import type { Actor } from "../access/actor.js";
import type { ConstraintValidator } from "../constraints/constraint-validation.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import { environmentOf, type FeatureDocument, type FeatureEnvironmentDocument, type FeatureStrategyDocument } from "./feature-model.js";
import { sortStrategies, toStrategyResponse } from "./feature-response.js";
import type { FeatureService } from "./feature-service.js";
import type { FlagProjects } from "./flag-projects.js";
import { applyJsonPatch } from "./json-patch.js";
import { spreadVariantWeights } from "./variant-weights.js";

export type StrategyInput = StrategyFields;

/** The segment rules a strategy must meet (SegmentService): the per-strategy limit, existing, global or the project's own. */
export interface StrategySegmentRules {
  assertUsableInStrategy(ids: readonly number[], project: string): Promise<void>;
}

const emptyEnvironment = (): FeatureEnvironmentDocument => ({ enabled: false, strategies: [], variants: [], lastSeenAt: null });

export class FlagEnvironmentService {
  constructor(
    private readonly deps: {
      flags: Pick<FeatureService, "find" | "getInProject" | "change">;
      projects: Pick<FlagProjects, "environmentViews" | "defaultStrategy">;
      strategyExists: (name: string) => Promise<boolean>;
      segments: StrategySegmentRules;
      validateConstraints: ConstraintValidator;
      unitOfWork: UnitOfWork;
      clock: () => Date;
    },
  ) {}

  // ---- environments ---------------------------------------------------------------------------

  /**
   * POST .../environments/:environment/on and `/off`. Enabling an environment without enabled strategies either
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
    const stored = await this.deps.flags.find(name);
    if (stored?.archived && stored.project === project) throw new ValidationError("Cannot perform this operation on archived features");
    await this.deps.flags.getInProject(project, name);
    await this.assertProjectEnvironment(project, name, environment);
    const defaultStrategy = enabled ? await this.deps.projects.defaultStrategy(project, environment) : undefined;
    return this.deps.unitOfWork.run(async (tx) => {
      const added: FeatureStrategyDocument[] = [];
      const activated: FeatureStrategyDocument[] = [];
      const { before, after } = await this.deps.flags.change(tx, actor, name, (doc) => {
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
    const doc = await this.deps.flags.getInProject(project, name);
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
    await this.deps.flags.getInProject(project, name);
    await this.assertProjectEnvironment(project, name, environment);
    await this.assertValidStrategy(input, project);
    return this.deps.unitOfWork.run(async (tx) => {
      let created: FeatureStrategyDocument | undefined;
      await this.deps.flags.change(tx, actor, name, (doc) => {
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
      await this.deps.flags.change(tx, actor, name, (doc) => {
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
      await this.deps.flags.change(tx, actor, name, (doc) => {
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
      await this.deps.flags.change(tx, actor, name, (doc) => {
        const env = environmentOf(doc, environment) as FeatureEnvironmentDocument;
        env.strategies = env.strategies.map((s) => ({ ...s, sortOrder: sortOrders.get(s.id) ?? s.sortOrder }));
        return doc;
      });
      await tx.record({ type: "strategy-order-changed", actor, project, environment, featureName: name, data: order });
    });
  }

  // ---- variants -------------------------------------------------------------------------------

  async getVariants(project: string, name: string, environment: string): Promise<{ version: number; variants: FeatureVariant[] }> {
    const doc = await this.deps.flags.getInProject(project, name);
    await this.assertProjectEnvironment(project, name, environment);
    return { version: 1, variants: environmentOf(doc, environment)?.variants ?? [] };
  }

  /** PUT .../environments/:environment/variants and .../variants-batch: replaces every variant of the flag in the environments, weights spread to 1000. */
  async setVariants(
    project: string,
    name: string,
    environments: string[],
    variants: FeatureVariant[],
    actor: Actor,
  ): Promise<{ version: number; variants: FeatureVariant[] }> {
    await this.deps.flags.getInProject(project, name);
    for (const environment of environments) await this.assertProjectEnvironment(project, name, environment);
    const spread = spreadVariantWeights(variants);
    await this.deps.unitOfWork.run(async (tx) => {
      const { before } = await this.deps.flags.change(tx, actor, name, (doc) => {
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

  // ---- rules ----------------------------------------------------------------------------------

  /** The checks every strategy write in `project` makes; change requests run them when a strategy is proposed. */
  async assertValidStrategy(input: StrategyInput, project: string): Promise<void> {
    if (!(await this.deps.strategyExists(input.name))) {
      throw new ValidationError(`Strategy ${input.name} is not defined`, [{ path: "name", message: "Unknown strategy name" }]);
    }
    await this.deps.validateConstraints(input.constraints ?? [], "constraints");
    await this.deps.segments.assertUsableInStrategy(input.segments ?? [], project);
    assertValidStrategyVariants(input.variants ?? []);
  }

  private async assertProjectEnvironment(project: string, name: string, environment: string): Promise<void> {
    const environments = await this.deps.projects.environmentViews(project);
    if (!environments.some((e) => e.name === environment)) {
      throw new NotFoundError(`Could not find environment ${environment} for feature ${name} in project ${project}`);
    }
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

function unique(names: string[]): string[] {
  return [...new Set(names)];
}
