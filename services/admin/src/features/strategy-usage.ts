import type { FeatureDocument, FeatureStrategyDocument } from "./feature-model.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import type { FeatureStore } from "./feature-store.js";

/** One strategy of one flag in one environment. */
export interface StrategyUse {
  feature: FeatureDocument;
  environment: string;
  strategy: FeatureStrategyDocument;
}

/** Every strategy of the given flags, for usage counts (segments, context fields, definitions). */
export function* strategyUses(features: Iterable<FeatureDocument>): Generator<StrategyUse> {
  for (const feature of features) {
    for (const [environment, featureEnvironment] of Object.entries(feature.environments)) {
      for (const strategy of featureEnvironment.strategies) yield { feature, environment, strategy };
    }
  }
}

/** How many flags and projects the matching strategies are spread over. */
export function usageCounts(uses: Iterable<{ feature: Pick<FeatureDocument, "_id" | "project"> }>): {
  usedInFeatures: number;
  usedInProjects: number;
} {
  const features = new Set<string>();
  const projects = new Set<string>();
  for (const { feature } of uses) {
    features.add(feature._id);
    projects.add(feature.project);
  }
  return { usedInFeatures: features.size, usedInProjects: projects.size };
}

/** How the flag-model slices read flags (FeatureService implements it; compose adapts). */
export interface FeatureReader {
  /** Every flag, archived ones included. */
  listAll(): Promise<FeatureDocument[]>;
  /** One flag, archived or not; null when there is none. */
  find(name: string): Promise<FeatureDocument | null>;
}

/**
 * The flag reads of FeatureService, straight from its store: the tag, context, strategy and segment
 * slices read flags, and FeatureService reads tags, so they are given this rather than the service.
 */
export function flagReader(features: Pick<FeatureStore, "list" | "get">, unitOfWork: Pick<UnitOfWork, "session">): FeatureReader {
  return {
    listAll: () => features.list({}),
    // Inside a unit of work, as the running transaction sees it (as FeatureService.find).
    find: (name) => features.get(name, unitOfWork.session),
  };
}
