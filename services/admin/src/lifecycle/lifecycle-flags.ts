import type { Actor } from "../access/access-service.js";
import type { Transaction } from "../events/unit-of-work.js";
import type { FeatureDocument } from "../features/feature-model.js";
import type { FeatureMutation } from "../features/feature-store.js";

/** The flag reads and writes the lifecycle slice makes (FeatureService implements it). */
export interface LifecycleFlags {
  /** NotFoundError when the flag does not live in the project. */
  getInProject(project: string, name: string): Promise<FeatureDocument>;
  find(name: string): Promise<FeatureDocument | null>;
  /** Changes the flag inside `tx` through the flag write path; the caller records the event. */
  change(
    tx: Transaction,
    actor: Actor,
    name: string,
    mutate: FeatureMutation,
  ): Promise<{ before: FeatureDocument; after: FeatureDocument }>;
}
