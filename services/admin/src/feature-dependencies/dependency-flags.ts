import type { StoreSession } from "@vexil/store";
import type { FeatureDocument } from "../features/feature-model.js";
import type { FeatureQuery } from "../features/feature-store.js";
import type { FlagWritePath } from "../features/flag-write-path.js";

/** The flag reads and writes dependencies are made of (FeatureService implements it). */
export interface DependencyFlags extends FlagWritePath {
  /** NotFoundError when the flag does not live in the project. */
  getInProject(project: string, name: string): Promise<FeatureDocument>;
  find(name: string, session?: StoreSession): Promise<FeatureDocument | null>;
  list(query: FeatureQuery): Promise<FeatureDocument[]>;
  /** Names of the flags that depend on `name`. */
  children(name: string, session?: StoreSession): Promise<string[]>;
}
