import type { ClientFeature, ClientSegment, DeltaEvent } from "@vexil/contracts";
import { compileSnapshot, compilingSnapshot, type CompiledFeature, type CompiledSnapshot } from "@vexil/evaluator";

/** An environment's flags as the admin stores them: each flag's JSON text by name, in name order. */
export interface SnapshotTexts {
  environment: string;
  revision: number;
  features: ReadonlyArray<readonly [name: string, json: string]>;
  segments: readonly ClientSegment[];
}

/** Responses kept per snapshot before they are dropped and built again on demand. */
const maxResponsesPerSnapshot = 64;

/** One environment's flags in memory: compiled for evaluation and as JSON text for the SDK APIs. */
export class EnvironmentSnapshot {
  /** Serialised responses (and frontend plans) keyed by query; built on first use, dropped with the snapshot. */
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
    /** No name sorts after it (a flag removed since may have held it): tells whether a new name can be appended in order. */
    readonly lastName: string | undefined,
    /** Parent name to the names of the flags depending on it, so a change finds its dependants without a walk. */
    readonly dependants: ReadonlyMap<string, ReadonlySet<string>>,
  ) {}

  /** Keeps a response for this snapshot; a burst of distinct queries cannot grow memory without bound. */
  keep(key: string, response: unknown): void {
    if (this.responses.size >= maxResponsesPerSnapshot) this.responses.clear();
    this.responses.set(key, response);
  }

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
   * The same snapshot built again in one pass from its JSON texts. Patched flag by flag, the
   * compiled flags end up scattered across the heap among everything allocated between the
   * changes: at 2,000 flags seeded one by one, an `/api/frontend` answer cost 1.6× the CPU it cost
   * after a restart, and 1.2–1.5× once built again (docs/bench-history/writes-and-cpu-2026-11-26-to-27.md).
   */
  rebuilt(): EnvironmentSnapshot {
    return runToEnd(this.rebuilding());
  }

  /**
   * `rebuilt`, handing the event loop back whenever a slice of the work has run for `sliceMs`: at
   * 100,000 flags a rebuild in one go held it for seconds, every request waiting meanwhile. What
   * is read of this snapshot is copied before the first pause, so the changes patched into it
   * meanwhile (see `nextSnapshot`) are not seen: the result holds this snapshot as it was.
   */
  rebuiltInTurns(sliceMs: number): Promise<EnvironmentSnapshot> {
    return inSlices(this.rebuilding(), sliceMs);
  }

  private rebuilding(): Generator<void, EnvironmentSnapshot, void> {
    const texts: SnapshotTexts = {
      environment: this.environment,
      revision: this.revision,
      features: [...this.featureJson],
      segments: JSON.parse(this.segmentsJson) as ClientSegment[],
    };
    return (function* () {
      return (yield* EnvironmentSnapshot.building(texts)).snapshot;
    })();
  }

  /** A snapshot with the environment and segments of `previous`. */
  static create(
    previous: EnvironmentSnapshot,
    revision: number,
    featureJson: ReadonlyMap<string, string>,
    features: ReadonlyMap<string, ClientFeature>,
    compiled: CompiledSnapshot,
    lastName: string | undefined,
    dependants: ReadonlyMap<string, ReadonlySet<string>>,
  ): EnvironmentSnapshot {
    return new EnvironmentSnapshot(
      previous.environment,
      revision,
      featureJson,
      features,
      previous.segments,
      previous.segmentsJson,
      compiled,
      lastName,
      dependants,
    );
  }

  /**
   * Builds the next snapshot from the stored texts, re-parsing only flags whose JSON text differs
   * from `previous`, and says what changed as delta events (all with the new revision as id).
   */
  static from(stored: SnapshotTexts, previous?: EnvironmentSnapshot): { snapshot: EnvironmentSnapshot; changes: DeltaEvent[] } {
    return runToEnd(EnvironmentSnapshot.building(stored, previous));
  }

  /** `from` a flag at a time: pauses after each flag it parses or compiles. */
  private static *building(
    stored: SnapshotTexts,
    previous?: EnvironmentSnapshot,
  ): Generator<void, { snapshot: EnvironmentSnapshot; changes: DeltaEvent[] }, void> {
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
      yield;
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
    const dependants = dependantsOf(features.values());
    const compiled =
      segmentsChanged || !previous
        ? yield* compilingSnapshot({ version: 2, features: [...features.values()], segments: [...segments] })
        : recompile(new Map(previous.compiled.features), features, segments, affectedBy(changedNames, dependants), false);
    return {
      snapshot: new EnvironmentSnapshot(
        stored.environment,
        stored.revision,
        featureJson,
        features,
        segments,
        segmentsJson,
        compiled,
        stored.features.at(-1)?.[0],
        dependants,
      ),
      changes,
    };
  }
}

/** The flags an announcement names, read again: JSON text, or null for a flag gone from the environment. */
export interface SnapshotChanges {
  revision: number;
  features: ReadonlyMap<string, string | null>;
  segments: readonly ClientSegment[];
}

/**
 * The next snapshot from the held one and the flags that changed, in time proportional to the
 * changes, whatever the number of flags: the held snapshot's maps are handed over and patched in
 * place (copying them cost more than everything else at tens of thousands of flags), so the held
 * snapshot must not be read once this returns. Requests read a snapshot synchronously and the
 * holder swaps it in the same turn. Name order holds as long as new names sort after every other
 * (seeding, generated names); a new name that falls in between costs one sort of the names.
 */
export function nextSnapshot(
  previous: EnvironmentSnapshot,
  changed: SnapshotChanges,
): { snapshot: EnvironmentSnapshot; changes: DeltaEvent[] } {
  const segmentsJson = JSON.stringify(changed.segments);
  if (segmentsJson !== previous.segmentsJson) {
    // Segments feed every flag's compilation: the whole path.
    const features: Array<readonly [string, string]> = [];
    for (const [name, json] of previous.featureJson) {
      const next = changed.features.has(name) ? changed.features.get(name) : json;
      if (next) features.push([name, next]);
    }
    for (const [name, json] of changed.features) if (json !== null && !previous.featureJson.has(name)) features.push([name, json]);
    features.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return EnvironmentSnapshot.from(
      { environment: previous.environment, revision: changed.revision, features, segments: changed.segments },
      previous,
    );
  }
  const eventId = changed.revision;
  const changes: DeltaEvent[] = [];
  const removals: DeltaEvent[] = [];
  let featureJson = previous.featureJson as Map<string, string>;
  let features = previous.features as Map<string, ClientFeature>;
  const dependants = previous.dependants as Map<string, Set<string>>;
  const names = [...changed.features.keys()].sort();
  let last = previous.lastName;
  let inOrder = true;
  for (const name of names) {
    const json = changed.features.get(name)!;
    const old = features.get(name);
    if (json === null) {
      if (old && featureJson.delete(name)) {
        features.delete(name);
        linkDependencies(dependants, old, undefined);
        removals.push({ eventId, type: "feature-removed", featureName: name, project: old.project });
      }
      continue;
    }
    if (featureJson.get(name) === json) continue;
    const feature = JSON.parse(json) as ClientFeature;
    if (!old) {
      if (last !== undefined && name < last) inOrder = false;
      last = name;
    }
    featureJson.set(name, json);
    features.set(name, feature);
    linkDependencies(dependants, old, feature);
    // A flag that moved project leaves the old one first, so project-filtered SDKs drop it.
    if (old && old.project !== feature.project)
      changes.push({ eventId, type: "feature-removed", featureName: old.name, project: old.project });
    changes.push({ eventId, type: "feature-updated", feature });
  }
  changes.push(...removals);
  if (!inOrder) {
    const sorted = [...featureJson.keys()].sort();
    featureJson = new Map(sorted.map((name) => [name, featureJson.get(name)!]));
    features = new Map(sorted.map((name) => [name, features.get(name)!]));
  }
  const changedNames = changes.flatMap((change) =>
    change.type === "feature-updated" ? [change.feature.name] : change.type === "feature-removed" ? [change.featureName] : [],
  );
  const compiled = recompile(
    previous.compiled.features as Map<string, CompiledFeature>,
    features,
    previous.segments,
    affectedBy(changedNames, dependants),
    inOrder,
  );
  return {
    snapshot: EnvironmentSnapshot.create(
      previous,
      changed.revision,
      featureJson,
      features,
      compiled,
      inOrder ? last : [...featureJson.keys()].at(-1),
      dependants,
    ),
    changes,
  };
}

/** Parent name to the flags depending on it. */
function dependantsOf(features: Iterable<ClientFeature>): Map<string, Set<string>> {
  const dependants = new Map<string, Set<string>>();
  for (const feature of features) linkDependencies(dependants, undefined, feature);
  return dependants;
}

/** Moves a flag's entries in `dependants` from the dependencies it had to those it has now. */
function linkDependencies(dependants: Map<string, Set<string>>, before: ClientFeature | undefined, after: ClientFeature | undefined) {
  for (const { feature: parent } of before?.dependencies ?? []) {
    const children = dependants.get(parent);
    children?.delete(before!.name);
    if (children?.size === 0) dependants.delete(parent);
  }
  for (const { feature: parent } of after?.dependencies ?? []) {
    let children = dependants.get(parent);
    if (!children) dependants.set(parent, (children = new Set()));
    children.add(after!.name);
  }
}

/** The changed flags and the flags depending on them (dependencies are one level deep: all a change can reach). */
function affectedBy(changedNames: readonly string[], dependants: ReadonlyMap<string, ReadonlySet<string>>): Set<string> {
  const affected = new Set(changedNames);
  for (const name of changedNames) for (const child of dependants.get(name) ?? []) affected.add(child);
  return affected;
}

/**
 * Compiles only the affected flags, reusing every other compiled flag: a change to one of 50,000
 * flags costs a few compilations. `compiled` (the previous compiled flags, in the order of the
 * previous `features`) is patched in place; `newFlagsLast` says `features` holds its new flags
 * after all others, in name order, so the patched map keeps its order.
 */
function recompile(
  compiled: Map<string, CompiledFeature>,
  features: ReadonlyMap<string, ClientFeature>,
  segments: readonly ClientSegment[],
  affected: ReadonlySet<string>,
  newFlagsLast: boolean,
): CompiledSnapshot {
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
  let appended = false;
  for (const name of affected) {
    const feature = fresh.get(name);
    if (feature && features.has(name)) {
      appended ||= !compiled.has(name);
      compiled.set(name, feature);
    } else compiled.delete(name);
  }
  // New flags went last; unless `features` has them last too, rebuild in its order.
  if (!appended || newFlagsLast) return { features: compiled };
  const ordered = new Map<string, CompiledFeature>();
  for (const name of features.keys()) {
    const feature = compiled.get(name);
    if (feature) ordered.set(name, feature);
  }
  return { features: ordered };
}

function runToEnd<T>(steps: Generator<void, T, void>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs `steps` to their end, yielding to the event loop whenever a slice has run for `sliceMs`. */
async function inSlices<T>(steps: Generator<void, T, void>, sliceMs: number): Promise<T> {
  let sliceStarted = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - sliceStarted >= sliceMs) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStarted = performance.now();
    }
  }
}
