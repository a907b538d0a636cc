import type { StrategyDefinition, UpsertStrategyDefinition } from "@vexil/contracts";
import { NameExistsError, NotFoundError, ValidationError } from "@vexil/errors";
import { DuplicateKeyError } from "@vexil/store";
import type { Actor } from "../access/actor.js";
import { strategyUses, type FeatureReader } from "../features/strategy-usage.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import { builtInStrategies } from "./built-in-strategies.js";
import type { StrategyDefinitionDocument, StrategyStore } from "./strategy-store.js";

function toDefinition({ _id, createdAt, sortOrder, ...definition }: StrategyDefinitionDocument): StrategyDefinition {
  return definition;
}

const isBuiltIn = (name: string) => builtInStrategies.some((s) => s.name === name);
const notFound = (name: string) => new NotFoundError(`Could not find a strategy named ${name}`);
const builtInRefused = (name: string, action: string) =>
  new ValidationError(`Strategy ${name} is built in and cannot be ${action}`, [{ path: "params.name", message: "built-in strategy" }]);

export class StrategyService {
  constructor(
    private readonly deps: {
      strategies: StrategyStore;
      features: FeatureReader;
      unitOfWork: UnitOfWork;
      clock: () => Date;
    },
  ) {}

  async list(): Promise<StrategyDefinition[]> {
    const custom = await this.deps.strategies.list();
    return [...builtInStrategies, ...custom.map(toDefinition)];
  }

  async get(name: string): Promise<StrategyDefinition> {
    const builtIn = builtInStrategies.find((s) => s.name === name);
    if (builtIn) return builtIn;
    const custom = await this.deps.strategies.get(name);
    if (!custom) throw notFound(name);
    return toDefinition(custom);
  }

  /** Whether a strategy name can be used on a feature: it must be defined. */
  async exists(name: string): Promise<boolean> {
    return isBuiltIn(name) || (await this.deps.strategies.get(name)) !== null;
  }

  async create(input: UpsertStrategyDefinition, actor: Actor): Promise<StrategyDefinition> {
    const taken = () => new NameExistsError(`Strategy with name ${input.name} already exist!`);
    if (isBuiltIn(input.name)) throw taken();
    const existing = await this.deps.strategies.list();
    const doc: StrategyDefinitionDocument = {
      _id: input.name,
      name: input.name,
      title: input.title ?? null,
      displayName: input.displayName ?? null,
      description: input.description ?? null,
      editable: true,
      deprecated: input.deprecated ?? false,
      parameters: input.parameters,
      createdAt: this.deps.clock(),
      sortOrder: existing.length,
    };
    try {
      await this.deps.unitOfWork.run(async (tx) => {
        if (await this.deps.strategies.get(doc._id, tx.session)) throw taken();
        await this.deps.strategies.insert(doc, tx.session);
        await tx.record({ type: "strategy-created", actor, data: toDefinition(doc) });
      });
    } catch (err) {
      if (err instanceof DuplicateKeyError) throw taken();
      throw err;
    }
    return toDefinition(doc);
  }

  /** Replaces a custom definition's fields (not its deprecation state). */
  async update(name: string, input: UpsertStrategyDefinition, actor: Actor): Promise<void> {
    if (input.name !== name) {
      throw new ValidationError(`Invalid body.name: must match the path (${name}); strategies cannot be renamed`, [
        { path: "body.name", message: "must match the strategy name in the path" },
      ]);
    }
    await this.change(name, "updated", "strategy-updated", actor, (before) => ({
      ...before,
      title: input.title ?? null,
      displayName: input.displayName ?? null,
      description: input.description ?? null,
      parameters: input.parameters,
    }));
  }

  async deprecate(name: string, actor: Actor): Promise<void> {
    await this.change(name, "deprecated", "strategy-deprecated", actor, (before) => ({ ...before, deprecated: true }));
  }

  async reactivate(name: string, actor: Actor): Promise<void> {
    await this.change(name, "reactivated", "strategy-reactivated", actor, (before) => ({ ...before, deprecated: false }));
  }

  /** Only custom strategies that no flag (archived ones included) uses. */
  async delete(name: string, actor: Actor): Promise<void> {
    if (isBuiltIn(name)) throw builtInRefused(name, "deleted");
    if (!(await this.deps.strategies.get(name))) throw notFound(name);
    const features = await this.deps.features.listAll();
    const users = new Set([...strategyUses(features)].filter((u) => u.strategy.name === name).map((u) => u.feature._id));
    if (users.size > 0) throw new NameExistsError(`Strategy ${name} is in use by ${[...users].join(", ")}; remove it from them first`);
    await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.deps.strategies.get(name, tx.session);
      if (!before) throw notFound(name);
      await this.deps.strategies.delete(name, tx.session);
      await tx.record({ type: "strategy-deleted", actor, preData: toDefinition(before) });
    });
  }

  private async change(
    name: string,
    action: string,
    type: "strategy-updated" | "strategy-deprecated" | "strategy-reactivated",
    actor: Actor,
    apply: (before: StrategyDefinitionDocument) => StrategyDefinitionDocument,
  ): Promise<void> {
    if (isBuiltIn(name)) throw builtInRefused(name, action);
    await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.deps.strategies.get(name, tx.session);
      if (!before) throw notFound(name);
      const after = apply(before);
      await this.deps.strategies.replace(after, tx.session);
      await tx.record({ type, actor, data: toDefinition(after), preData: toDefinition(before) });
    });
  }
}
