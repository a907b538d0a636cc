import type { LegalValue } from "@vexil/contracts";
import type { Collection, StoreEngine, StoreSession } from "@vexil/store";

export interface ContextFieldDocument {
  /** The field name, as constraints refer to it. */
  _id: string;
  description: string | null;
  stickiness: boolean;
  sortOrder: number;
  legalValues: LegalValue[];
  createdAt: Date;
}

export interface ContextFieldStore {
  list(): Promise<ContextFieldDocument[]>;
  get(name: string, session?: StoreSession): Promise<ContextFieldDocument | null>;
  count(): Promise<number>;
  insert(doc: ContextFieldDocument, session?: StoreSession): Promise<void>;
  replace(doc: ContextFieldDocument, session: StoreSession): Promise<void>;
  delete(name: string, session: StoreSession): Promise<boolean>;
}

export function createContextFieldStore(engine: StoreEngine): ContextFieldStore {
  const fields: Collection<ContextFieldDocument> = engine.collection("context_fields");
  return {
    list: () => fields.find({}, { sort: { sortOrder: 1, _id: 1 } }),
    get: (name, session) => fields.findOne({ _id: name }, { session }),
    count: () => fields.countDocuments({}),
    async insert(doc, session) {
      await fields.insertOne(doc, { session });
    },
    async replace(doc, session) {
      await fields.replaceOne({ _id: doc._id }, doc, { session });
    },
    async delete(name, session) {
      return (await fields.deleteOne({ _id: name }, { session })).deletedCount === 1;
    },
  };
}
