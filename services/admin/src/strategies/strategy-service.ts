import type { StrategyDefinition } from "@vexil/contracts";
import { NotFoundError } from "@vexil/errors";
import { builtInStrategies } from "./built-in-strategies.js";
import type { StrategyDefinitionDocument, StrategyStore } from "./strategy-store.js";

function toDefinition({ _id, createdAt, sortOrder, ...definition }: StrategyDefinitionDocument): StrategyDefinition {
  return definition;
}

export class StrategyService {
  constructor(private readonly deps: { strategies: StrategyStore }) {}

  async list(): Promise<StrategyDefinition[]> {
    const custom = await this.deps.strategies.list();
    return [...builtInStrategies, ...custom.map(toDefinition)];
  }

  async get(name: string): Promise<StrategyDefinition> {
    const builtIn = builtInStrategies.find((s) => s.name === name);
    if (builtIn) return builtIn;
    const custom = await this.deps.strategies.get(name);
    if (!custom) throw new NotFoundError(`Could not find a strategy named ${name}`);
    return toDefinition(custom);
  }

  /** Whether a strategy name can be used on a feature: it must be defined. */
  async exists(name: string): Promise<boolean> {
    return builtInStrategies.some((s) => s.name === name) || (await this.deps.strategies.get(name)) !== null;
  }
}
