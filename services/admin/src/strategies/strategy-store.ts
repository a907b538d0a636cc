import type { StrategyDefinition } from "@vexil/contracts";
import type { Collection, StoreEngine, StoreSession } from "@vexil/store";

/** A custom strategy definition; built-ins live in code. */
export interface StrategyDefinitionDocument extends StrategyDefinition {
  _id: string;
  createdAt: Date;
  sortOrder: number;
}

export interface StrategyStore {
  list(): Promise<StrategyDefinitionDocument[]>;
  get(name: string, session?: StoreSession): Promise<StrategyDefinitionDocument | null>;
  insert(doc: StrategyDefinitionDocument, session?: StoreSession): Promise<void>;
  replace(doc: StrategyDefinitionDocument, session?: StoreSession): Promise<void>;
  delete(name: string, session?: StoreSession): Promise<boolean>;
}

export function createStrategyStore(engine: StoreEngine): StrategyStore {
  const definitions: Collection<StrategyDefinitionDocument> = engine.collection("strategy_definitions");
  return {
    list: () => definitions.find({}, { sort: { sortOrder: 1, _id: 1 } }),
    get: (name, session) => definitions.findOne({ _id: name }, { session }),
    async insert(doc, session) {
      await definitions.insertOne(doc, { session });
    },
    async replace(doc, session) {
      await definitions.replaceOne({ _id: doc._id }, doc, { session });
    },
    async delete(name, session) {
      return (await definitions.deleteOne({ _id: name }, { session })).deletedCount === 1;
    },
  };
}
