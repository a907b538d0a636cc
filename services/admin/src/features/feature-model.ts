import type { Constraint, FeatureVariant, LifecycleStage, StrategyVariant } from "@vexil/contracts";

/**
 * How a flag is stored: one document per flag, its environments (with their strategies and
 * variants) embedded, so one transaction changes a flag and one read returns all of it. Every
 * slice that reads flags (snapshots, segments usage, dependencies, lifecycle) reads this shape
 * through FeatureService, never the collection.
 */
export interface FeatureStrategyDocument {
  /** UUID. */
  id: string;
  name: string;
  title: string | null;
  disabled: boolean;
  sortOrder: number;
  constraints: Constraint[];
  /** Spread and sorted by name as Unleash stores them (see spreadVariantWeights): the SDKs bucket users by list order. */
  variants: StrategyVariant[];
  parameters: Record<string, string>;
  segments: number[];
  createdAt: Date;
}

export interface FeatureEnvironmentDocument {
  enabled: boolean;
  strategies: FeatureStrategyDocument[];
  variants: FeatureVariant[];
  lastSeenAt: Date | null;
}

export interface FeatureDependencyDocument {
  feature: string;
  enabled: boolean;
  variants: string[];
}

export interface LifecycleEntry {
  stage: LifecycleStage;
  enteredStageAt: Date;
  /** Set on `completed`: whether the flag's code was kept or discarded, and the variant kept. */
  status?: "kept" | "discarded";
  statusValue?: string;
}

export interface CollaboratorEntry {
  id: number;
  name: string;
  imageUrl: string;
  /** Time of this user's latest change; collaborators are listed most recent first. */
  changedAt: Date;
}

export interface FeatureDocument {
  /** The flag name: unique across all projects, as in Unleash. */
  _id: string;
  project: string;
  type: string;
  description: string | null;
  stale: boolean;
  impressionData: boolean;
  archived: boolean;
  archivedAt: Date | null;
  createdAt: Date;
  createdBy: { id: number; name: string; imageUrl: string };
  /** Keyed by environment name; an environment of the project without an entry is disabled and empty. */
  environments: Record<string, FeatureEnvironmentDocument>;
  dependencies: FeatureDependencyDocument[];
  /** Every stage entered, oldest first; the last entry is the current stage. */
  lifecycle: LifecycleEntry[];
  collaborators: CollaboratorEntry[];
  /** Bumped on every change; change requests use it to detect conflicts. */
  version: number;
}

/**
 * A flag's settings in one environment, or undefined. Only the flag's own entries count, so an
 * environment named like an Object method (`toString`, `hasOwnProperty`) is data, not a function.
 */
export function environmentOf(doc: Pick<FeatureDocument, "environments">, environment: string): FeatureEnvironmentDocument | undefined {
  return Object.hasOwn(doc.environments, environment) ? doc.environments[environment] : undefined;
}

export interface SegmentDocument {
  /** Integer id from the `segments` sequence. */
  _id: number;
  name: string;
  description: string | null;
  project: string | null;
  constraints: Constraint[];
  createdBy: string | null;
  createdAt: Date;
  version: number;
}
