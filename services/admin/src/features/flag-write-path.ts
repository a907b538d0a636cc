import type { Actor } from "../access/actor.js";
import type { Transaction } from "../events/unit-of-work.js";
import type { FeatureDocument } from "./feature-model.js";
import type { FeatureMutation } from "./feature-store.js";

/** The one way other slices change a flag (FeatureService implements it). */
export interface FlagWritePath {
  /** Changes the flag inside `tx` through the flag write path; the caller records the event. */
  change(
    tx: Transaction,
    actor: Actor,
    name: string,
    mutate: FeatureMutation,
  ): Promise<{ before: FeatureDocument; after: FeatureDocument }>;
}
