import type { StoreSession } from "@vexil/store";
import type { Actor } from "../access/access-service.js";
import type { Transaction } from "../events/unit-of-work.js";
import type { FeatureDocument } from "../features/feature-model.js";
import type { FeatureMutation, FeatureQuery } from "../features/feature-store.js";

/** The flag reads and writes dependencies are made of (FeatureService implements it). */
export interface DependencyFlags {
  /** NotFoundError when the flag does not live in the project. */
  getInProject(project: string, name: string): Promise<FeatureDocument>;
  find(name: string, session?: StoreSession): Promise<FeatureDocument | null>;
  list(query: FeatureQuery): Promise<FeatureDocument[]>;
  /** Names of the flags that depend on `name`. */
  children(name: string, session?: StoreSession): Promise<string[]>;
  /** Changes the flag inside `tx` through the flag write path; the caller records the event. */
  change(
    tx: Transaction,
    actor: Actor,
    name: string,
    mutate: FeatureMutation,
  ): Promise<{ before: FeatureDocument; after: FeatureDocument }>;
}
