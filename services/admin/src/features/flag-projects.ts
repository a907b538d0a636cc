import type { FeatureNamingPattern, StrategyFields } from "@vexil/contracts";
import type { EnvironmentView } from "./feature-response.js";

/** The project settings that constrain the flags created in it. */
export interface FlagProjectSettings {
  featureNaming: FeatureNamingPattern | null;
  featureLimit: number | null;
}

/**
 * What the feature slice reads about the project a flag belongs to (ProjectService implements it).
 * `get`, `environmentViews` and `defaultStrategy` throw NotFoundError for a project that does not exist.
 */
export interface FlagProjects {
  get(id: string): Promise<FlagProjectSettings>;
  exists(id: string): Promise<boolean>;
  environmentViews(id: string): Promise<EnvironmentView[]>;
  /** The strategy a flag gets when it is enabled in an environment where it has none. */
  defaultStrategy(id: string, environment: string): Promise<StrategyFields & { name: string }>;
}
