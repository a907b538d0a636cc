import type { ClientFeature, ClientSegment, DeltaEvent } from "@vexil/contracts";
import { compileSnapshot, type CompiledFeature, type CompiledSnapshot } from "@vexil/evaluator";

/** An environment's flags as the admin stores them: each flag's JSON text by name, in name order. */
export interface SnapshotTexts {
  environment: string;
  revision: number;
  features: ReadonlyArray<readonly [name: string, json: string]>;
  segments: readonly ClientSegment[];
}

/** One environment's flags in memory: compiled for evaluation and as JSON text for the SDK APIs. */
export class EnvironmentSnapshot {
  /** Serialised responses keyed by query; built on first use, dropped with the snapshot. */
  readonly responses = new Map<string, unknown>();
  private inlined: Map<string, string> | undefined;

  private constructor(
    readonly environment: string,
    readonly revision: number,
    /** Name to JSON text, in name order. */
    readonly featureJson: ReadonlyMap<string, string>,
    readonly features: ReadonlyMap<string, ClientFeature>,
    readonly segments: readonly ClientSegment[],
    readonly segmentsJson: string,
    readonly compiled: CompiledSnapshot,
  ) {}

  /**
   * JSON text of each flag with its segments' constraints appended to the strategies' own, for
   * SDKs older than client specification 4.2.0; built once per snapshot.
   */
  inlinedFeatureJson(): ReadonlyMap<string, string> {
    if (this.inlined) return this.inlined;
    const byId = new Map(this.segments.map((segment) => [segment.id, segment]));
    const inlined = new Map<string, string>();
    for (const [name, json] of this.featureJson) {
      const feature = this.features.get(name) as ClientFeature;
      if (!feature.strategies.some((strategy) => strategy.segments && strategy.segments.length > 0)) {
        inlined.set(name, json);
        continue;
      }
      const strategies = feature.strategies.map(({ segments, ...strategy }) => ({
        ...strategy,
        constraints: [...strategy.constraints, ...(segments ?? []).flatMap((id) => byId.get(id)?.constraints ?? [])],
      }));
      inlined.set(name, JSON.stringify({ ...feature, strategies }));
    }
    this.inlined = inlined;
    return inlined;
  }

  /**
   * Builds the next snapshot from the stored texts, re-parsing only flags whose JSON text differs
   * from `previous`, and says what changed as delta events (all with the new revision as id).
   */
  static from(stored: SnapshotTexts, previous?: EnvironmentSnapshot): { snapshot: EnvironmentSnapshot; changes: DeltaEvent[] } {
    const eventId = stored.revision;
    const changes: DeltaEvent[] = [];
    const featureJson = new Map<string, string>();
    const features = new Map<string, ClientFeature>();
    for (const [name, json] of stored.features) {
      const before = previous?.featureJson.get(name);
      if (before === json && previous) {
        featureJson.set(name, json);
        features.set(name, previous.features.get(name) as ClientFeature);
        continue;
      }
      const feature = JSON.parse(json) as ClientFeature;
      featureJson.set(feature.name, json);
      features.set(feature.name, feature);
      const old = previous?.features.get(feature.name);
      // A flag that moved project leaves the old one first, so project-filtered SDKs drop it.
      if (old && old.project !== feature.project) {
        changes.push({ eventId, type: "feature-removed", featureName: old.name, project: old.project });
      }
      changes.push({ eventId, type: "feature-updated", feature });
    }
    for (const [name, old] of previous?.features ?? []) {
      if (!features.has(name)) changes.push({ eventId, type: "feature-removed", featureName: name, project: old.project });
    }

    const segmentsJson = previous && stored.segments === previous.segments ? previous.segmentsJson : JSON.stringify(stored.segments);
    let segments: readonly ClientSegment[] = stored.segments;
    if (previous && segmentsJson === previous.segmentsJson) {
      segments = previous.segments;
    } else {
      const before = new Map((previous?.segments ?? []).map((segment) => [segment.id, JSON.stringify(segment)]));
      for (const segment of stored.segments) {
        if (before.get(segment.id) !== JSON.stringify(segment)) changes.push({ eventId, type: "segment-updated", segment });
        before.delete(segment.id);
      }
      for (const id of before.keys()) changes.push({ eventId, type: "segment-removed", segmentId: id });
    }

    const segmentsChanged = !previous || segments !== previous.segments;
    const changedNames = changes.flatMap((change) =>
      change.type === "feature-updated" ? [change.feature.name] : change.type === "feature-removed" ? [change.featureName] : [],
    );
    const compiled =
      segmentsChanged || !previous
        ? compileSnapshot({ version: 2, features: [...features.values()], segments: [...segments] })
        : recompile(previous.compiled, features, segments, changedNames);
    return {
      snapshot: new EnvironmentSnapshot(stored.environment, stored.revision, featureJson, features, segments, segmentsJson, compiled),
      changes,
    };
  }
}

/**
 * Compiles only the changed flags and the flags depending on them (dependencies are one level
 * deep, so that is all a change can reach), reusing every other compiled flag: a change to one
 * of 2,000 flags costs a few compilations instead of 2,000.
 */
function recompile(
  previous: CompiledSnapshot,
  features: ReadonlyMap<string, ClientFeature>,
  segments: readonly ClientSegment[],
  changedNames: readonly string[],
): CompiledSnapshot {
  const affected = new Set(changedNames);
  if (affected.size > 0) {
    for (const feature of features.values()) {
      if (feature.dependencies?.some((dependency) => affected.has(dependency.feature))) affected.add(feature.name);
    }
  }
  // The affected flags with their parents, so the partial compilation can resolve dependencies.
  const partial = new Map<string, ClientFeature>();
  for (const name of affected) {
    const feature = features.get(name);
    if (!feature) continue;
    partial.set(name, feature);
    for (const dependency of feature.dependencies ?? []) {
      const parent = features.get(dependency.feature);
      if (parent) partial.set(parent.name, parent);
    }
  }
  const fresh = compileSnapshot({ version: 2, features: [...partial.values()], segments: [...segments] }).features;
  const compiled = new Map<string, CompiledFeature>();
  for (const name of features.keys()) {
    const feature = affected.has(name) ? fresh.get(name) : previous.features.get(name);
    if (feature) compiled.set(name, feature);
  }
  return { features: compiled };
}
