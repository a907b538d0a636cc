/**
 * What each change-request action does, in one table: `validate` runs the checks a direct change
 * would make when the change is proposed, `apply` makes the change through the same domain method
 * a direct change uses, and `order` places it among the request's other changes when applied.
 * `base` records what of the flag's environment the change was proposed against, and `conflict`
 * says why it no longer applies as proposed.
 */
import type { ChangeRequestChange, Constraint, FeatureVariant, StrategyFields } from "@vexil/contracts";
import { ValidationError, VexilError } from "@vexil/errors";
import type { Actor } from "../access/actor.js";
import type { ConstraintValidator } from "../constraints/constraint-validation.js";
import {
  environmentOf,
  type FeatureDocument,
  type FeatureEnvironmentDocument,
  type FeatureStrategyDocument,
  type SegmentDocument,
} from "../features/feature-model.js";
import { spreadVariantWeights } from "../features/variant-weights.js";
import type { ChangeBase, StoredChange } from "./change-request-model.js";
import { canonicalJson, featureConflictOf, strategyFingerprint } from "./change-request-rules.js";

/** The flag reads and lifecycle changes change requests make (FeatureService). */
export interface FeatureChanges {
  find(name: string): Promise<FeatureDocument | null>;
  getInProject(project: string, name: string): Promise<FeatureDocument>;
  archive(project: string, names: string[], actor: Actor): Promise<void>;
}

/** What change requests propose and apply in a flag's environment (FlagEnvironmentService). */
export interface FeatureStrategyChanges {
  assertValidStrategy(input: StrategyFields & { name: string }, project: string): Promise<void>;
  setEnvironmentEnabled(
    project: string,
    name: string,
    environment: string,
    enabled: boolean,
    actor: Actor,
    options?: { shouldActivateDisabledStrategies?: boolean },
  ): Promise<unknown>;
  addStrategy(project: string, name: string, environment: string, input: StrategyFields & { name: string }, actor: Actor): Promise<unknown>;
  updateStrategy(
    project: string,
    name: string,
    environment: string,
    id: string,
    input: StrategyFields & { name: string },
    actor: Actor,
  ): Promise<unknown>;
  deleteStrategy(project: string, name: string, environment: string, id: string, actor: Actor): Promise<void>;
  setStrategySortOrder(
    project: string,
    name: string,
    environment: string,
    order: { id: string; sortOrder: number }[],
    actor: Actor,
  ): Promise<void>;
  setVariants(project: string, name: string, environments: string[], variants: FeatureVariant[], actor: Actor): Promise<unknown>;
}

/** The segment operations (SegmentService). */
export interface SegmentChanges {
  find(id: number): Promise<SegmentDocument | null>;
  update(
    id: number,
    input: { name: string; description?: string | null; project?: string | null; constraints: Constraint[] },
    actor: Actor,
  ): Promise<void>;
  delete(id: number, actor: Actor): Promise<void>;
}

/** The dependency operations (DependencyService). */
export interface DependencyChanges {
  /** Why the child cannot depend on the parent, or undefined. */
  problem(project: string, child: string, parent: string): Promise<string | undefined>;
  add(project: string, child: string, body: { feature: string; enabled: boolean; variants: string[] }, actor: Actor): Promise<void>;
  removeAll(project: string, child: string, actor: Actor): Promise<void>;
}

export interface ActionPorts {
  features: FeatureChanges;
  featureStrategies: FeatureStrategyChanges;
  segments: SegmentChanges;
  dependencies: DependencyChanges;
  validateConstraints: ConstraintValidator;
}

type Action = ChangeRequestChange["action"];
type ChangeOf<A extends Action> = Extract<ChangeRequestChange, { action: A }>;

/** Where a proposed change is checked: its request's project and environment, and the flag it names. */
interface Proposal {
  project: string;
  environment: string;
  /** Where the change sits in the request body, e.g. `body.2`. */
  path: string;
  /** Throws a 400 naming the field of the request body. */
  bad(message: string, field: string): never;
  /** Runs a domain check, turning its 4xx into a 400 naming the field. */
  atField(field: string, check: () => Promise<void> | void): Promise<void>;
  /** The strategy with this id in the flag's environment, or a 400 naming the field. */
  strategy(id: string, field: string): FeatureStrategyDocument;
}

/** The request a change is applied for, and who applies it. */
interface Application {
  project: string;
  environment: string;
  actor: Actor;
}

export interface ActionHandler<A extends Action> {
  order: number;
  validate(change: ChangeOf<A>, proposal: Proposal): Promise<void>;
  apply(change: ChangeOf<A>, application: Application): Promise<void>;
  /** What of the flag's environment to record beyond its version (nothing by default). */
  base?(change: ChangeOf<A>, environment: FeatureEnvironmentDocument | undefined): ChangeBase;
  /** Why the change no longer applies as proposed, the flag's environment being what it is now. */
  conflict?(change: ChangeOf<A>, base: ChangeBase, environment: FeatureEnvironmentDocument | undefined): string | undefined;
}

export type ActionTable = { [A in Action]: ActionHandler<A> };

const noChecks = async (): Promise<void> => undefined;

/** updateStrategy and deleteStrategy were proposed against one strategy; reordering it is no conflict. */
const oneStrategy = {
  base: (change: { payload: { id: string } }, environment: FeatureEnvironmentDocument | undefined): ChangeBase => {
    const strategy = environment?.strategies.find((s) => s.id === change.payload.id);
    return strategy ? { strategy: strategyFingerprint(strategy) } : {};
  },
  conflict: (change: { payload: { id: string } }, base: ChangeBase, environment: FeatureEnvironmentDocument | undefined) => {
    const strategy = environment?.strategies.find((s) => s.id === change.payload.id);
    if (!strategy) return `The strategy was deleted after this change was proposed`;
    if (base.strategy !== undefined && strategyFingerprint(strategy) !== base.strategy) {
      return `The strategy was changed after this change was proposed`;
    }
    return undefined;
  },
};

/** One row per action. Applying in `order` makes, e.g., a proposed strategy exist before the flag is enabled. */
export function changeActions({ features, featureStrategies, segments, dependencies, validateConstraints }: ActionPorts): ActionTable {
  return {
    updateSegment: {
      order: 0,
      validate: (change, { path, atField }) =>
        atField("payload.constraints", () => validateConstraints(change.payload.constraints, `${path}.payload.constraints`)),
      apply: async ({ payload: { id, ...input } }, { actor }) => segments.update(id, input, actor),
    },
    addStrategy: {
      order: 1,
      validate: (change, { project, atField }) => atField("payload", () => featureStrategies.assertValidStrategy(change.payload, project)),
      apply: async (change, { project, environment, actor }) => {
        await featureStrategies.addStrategy(project, change.feature, environment, change.payload, actor);
      },
    },
    updateStrategy: {
      order: 1,
      validate: async (change, { project, atField, strategy }) => {
        strategy(change.payload.id, "payload.id");
        await atField("payload", () => featureStrategies.assertValidStrategy(change.payload, project));
      },
      apply: async ({ feature, payload: { id, ...fields } }, { project, environment, actor }) => {
        await featureStrategies.updateStrategy(project, feature, environment, id, fields as StrategyFields & { name: string }, actor);
      },
      ...oneStrategy,
    },
    deleteStrategy: {
      order: 1,
      validate: async (change, { strategy }) => void strategy(change.payload.id, "payload.id"),
      apply: (change, { project, environment, actor }) =>
        featureStrategies.deleteStrategy(project, change.feature, environment, change.payload.id, actor),
      ...oneStrategy,
    },
    reorderStrategy: {
      order: 2,
      validate: async (change, { strategy }) => change.payload.forEach((entry, i) => strategy(entry.id, `payload.${i}.id`)),
      apply: (change, { project, environment, actor }) =>
        featureStrategies.setStrategySortOrder(project, change.feature, environment, change.payload, actor),
      conflict: (change, _base, environment) => {
        const ids = new Set(environment?.strategies.map((s) => s.id) ?? []);
        const missing = change.payload.filter((entry) => !ids.has(entry.id));
        return missing.length > 0
          ? `Strategies ${missing.map((m) => m.id).join(", ")} were deleted after this change was proposed`
          : undefined;
      },
    },
    patchVariant: {
      order: 2,
      validate: (change, { atField }) => atField("payload.variants", () => void spreadVariantWeights(change.payload.variants)),
      apply: async (change, { project, environment, actor }) => {
        await featureStrategies.setVariants(project, change.feature, [environment], change.payload.variants, actor);
      },
      base: (_change, environment) => ({ variants: canonicalJson(environment?.variants ?? []) }),
      conflict: (_change, base, environment) =>
        base.variants !== undefined && canonicalJson(environment?.variants ?? []) !== base.variants
          ? `The variants were changed after this change was proposed`
          : undefined,
    },
    addDependency: {
      order: 3,
      validate: async (change, { project, bad }) => {
        const problem = await dependencies.problem(project, change.feature, change.payload.feature);
        if (problem) bad(problem, "payload.feature");
        if (change.payload.variants && change.payload.variants.length > 0 && !change.payload.enabled) {
          bad("variants only apply when the parent is enabled", "payload.variants");
        }
      },
      apply: ({ feature, payload }, { project, actor }) =>
        dependencies.add(project, feature, { feature: payload.feature, enabled: payload.enabled, variants: payload.variants ?? [] }, actor),
    },
    deleteDependency: {
      order: 3,
      validate: noChecks,
      apply: (change, { project, actor }) => dependencies.removeAll(project, change.feature, actor),
    },
    updateEnabled: {
      order: 4,
      validate: noChecks,
      apply: async ({ feature, payload }, { project, environment, actor }) => {
        await featureStrategies.setEnvironmentEnabled(project, feature, environment, payload.enabled, actor, {
          shouldActivateDisabledStrategies: payload.shouldActivateDisabledStrategies ?? false,
        });
      },
    },
    archiveFeature: {
      order: 5,
      validate: noChecks,
      apply: (change, { project, actor }) => features.archive(project, [change.feature], actor),
    },
    deleteSegment: {
      order: 6,
      validate: noChecks,
      apply: (change, { actor }) => segments.delete(change.payload.id, actor),
    },
  };
}

/** The row of a change's action (TypeScript cannot relate a union member to its row by itself). */
export function handlerOf<A extends Action>(table: ActionTable, change: ChangeOf<A>): ActionHandler<A> {
  return table[change.action as A];
}

/** What to record when a change is proposed: the version of its segment or flag, and what its row adds. */
export function baseOf(
  table: ActionTable,
  change: ChangeRequestChange,
  feature: FeatureDocument | null,
  segment: SegmentDocument | null,
  environment: string,
): ChangeBase {
  if (segment) return { segmentVersion: segment.version };
  if (!feature) return {};
  return { featureVersion: feature.version, ...handlerOf(table, change).base?.(change, environmentOf(feature, environment)) };
}

export interface ConflictContext {
  project: string;
  environment: string;
  /** The flag now (null: deleted). */
  feature: FeatureDocument | null;
  /** The segment now (null: deleted). */
  segment: SegmentDocument | null;
}

/** Why a stored change can no longer be applied as proposed, or undefined when it still can. */
export function conflictOf(table: ActionTable, change: StoredChange, now: ConflictContext): string | undefined {
  if (change.feature === null) {
    if (!now.segment) return `Segment ${String((change.payload as { id: number }).id)} was deleted after this change was proposed`;
    if (change.base.segmentVersion !== undefined && now.segment.version !== change.base.segmentVersion) {
      return `Segment ${now.segment.name} was changed after this change was proposed`;
    }
    return undefined;
  }
  const featureConflict = featureConflictOf(change.feature, now);
  if (featureConflict) return featureConflict;
  // Stored as validated when proposed: its payload has its action's shape.
  const proposed = { action: change.action, feature: change.feature, payload: change.payload } as ChangeRequestChange;
  return handlerOf(table, proposed).conflict?.(proposed, change.base, environmentOf(now.feature!, now.environment));
}

/**
 * Checks a proposed change at `path` of the request body: the flag or segment it names exists
 * (in the project, not archived), then the action's own checks. Returns what the change was made against.
 */
export async function validateProposal(
  ports: Pick<ActionPorts, "features" | "segments">,
  table: ActionTable,
  target: { project: string; environment: string },
  change: ChangeRequestChange,
  path: string,
): Promise<{ feature: FeatureDocument | null; segment: SegmentDocument | null }> {
  const bad = (message: string, field: string): never => {
    const at = `${path}.${field}`;
    throw new ValidationError(`Invalid ${at}: ${message}`, [{ path: at, message }]);
  };
  const atField = async (field: string, check: () => Promise<void> | void) => {
    try {
      await check();
    } catch (err) {
      if (err instanceof VexilError && err.status < 500) bad(err.message, field);
      throw err;
    }
  };
  const { project, environment } = target;
  const isSegmentChange = change.action === "updateSegment" || change.action === "deleteSegment";
  const segment = isSegmentChange ? await ports.segments.find(change.payload.id) : null;
  if (isSegmentChange && !segment) bad(`no segment exists with ID "${change.payload.id}"`, "payload.id");
  const feature = isSegmentChange ? null : await ports.features.find(change.feature);
  if (!isSegmentChange && (!feature || feature.project !== project || feature.archived))
    bad(`feature ${change.feature} does not exist in project ${project}`, "feature");
  const strategies = feature ? (environmentOf(feature, environment)?.strategies ?? []) : [];
  const strategy = (id: string, field: string): FeatureStrategyDocument =>
    strategies.find((s) => s.id === id) ?? bad(`strategy ${id} does not exist for ${feature?._id} in ${environment}`, field);
  await handlerOf(table, change).validate(change, { project, environment, path, bad, atField, strategy });
  return { feature, segment };
}
