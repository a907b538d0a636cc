import type { FeatureDocument } from "../features/feature-model.js";
import type { FlagWritePath } from "../features/flag-write-path.js";

/** The flag reads and writes the lifecycle slice makes (FeatureService implements it). */
export interface LifecycleFlags extends FlagWritePath {
  /** NotFoundError when the flag does not live in the project. */
  getInProject(project: string, name: string): Promise<FeatureDocument>;
  find(name: string): Promise<FeatureDocument | null>;
}
